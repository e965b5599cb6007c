import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

const ANSWERS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'Request Header Fields Too Large.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'Request Timeout.' },
};
const BAD_REQUEST = { status: 400, reason: 'Bad Request', message: 'Bad Request.' };

function rawResponse({ status, reason, message }: { status: number; reason: string; message: string }): string {
  const body = JSON.stringify({ message });
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Node's parser rejections (docs/api.md#errors) answered with a JSON body instead of an empty one, then closed. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: { headersSent?: boolean } }) => {
    // Nothing can be written on a connection the client reset, or once a response has begun.
    if (error.code !== 'ECONNRESET' && socket.writable && !socket._httpMessage?.headersSent) {
      socket.end(rawResponse(ANSWERS[error.code ?? ''] ?? BAD_REQUEST));
    } else {
      socket.destroy();
    }
  });
}
