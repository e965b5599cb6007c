/** Reading the Prometheus text format a /metrics listener serves. */

export async function scrape(port: number): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** The value of one sample in Prometheus text format, or undefined when the series is absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[3]);
  }
  return undefined;
}
