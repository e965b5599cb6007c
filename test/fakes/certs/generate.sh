#!/usr/bin/env bash
# Regenerates the TEST-ONLY certificate authority and the loopback server
# certificate used by the fake push providers in test/fakes.
#
# Tests trust the CA via NODE_EXTRA_CA_CERTS=test/fakes/certs/ca.pem, so the
# code under test keeps full certificate verification switched on.
# The private keys are committed on purpose: they protect nothing.
set -euo pipefail

cd "$(dirname "$0")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# ~100 years, so nobody has to rotate these while the project lives.
days=36500

# P-256 keys: small, fast, and what the real providers' ecosystems use.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca-key.pem
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out server-key.pem

openssl req -x509 -new -sha256 -days "$days" \
  -key ca-key.pem \
  -subj "/O=push-notification-service tests/CN=Test-only loopback CA - DO NOT TRUST" \
  -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -addext "subjectKeyIdentifier=hash" \
  -out ca.pem

openssl req -new -key server-key.pem -subj "/CN=localhost" -out "$work/server.csr"

# Strict verifiers (OpenSSL 3 with X509_STRICT, Go, Python 3.13) want the
# AKI/SKI pair and an end-entity that is explicitly not a CA.
cat >"$work/server.ext" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EXT

openssl x509 -req -sha256 -days "$days" \
  -in "$work/server.csr" \
  -CA ca.pem -CAkey ca-key.pem -set_serial "0x$(openssl rand -hex 16)" \
  -extfile "$work/server.ext" \
  -out server.pem

# The keys protect nothing; keep them readable for whichever user runs CI.
chmod 644 ./*.pem

openssl verify -CAfile ca.pem server.pem
