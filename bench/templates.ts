import { BODY, TITLE } from './clients';
import { measureDelivery, type DeliveryResult } from './delivery';
import type { Seeded } from './lib/seed';
import type { Stack } from './lib/stack';

/** The template pair's figures (bench/README.md "Templates"): CPU per delivery, worker + PostgreSQL + Redis, and the worker's peak RSS. */
export interface TemplatePair {
  rounds: number;
  plainCpuMicros: number;
  templateCpuMicros: number;
  /** Template over plain, the medians' ratio: docs/api.md#liquid promises at most 1.15. */
  ratio: number;
  /** Each round's template over its plain send: how far the machine moved the figure. */
  roundRatios: number[];
  plainPeakRssMb: number;
  templatePeakRssMb: number;
  deliveries: number;
}

const KEY = 'bench_one_variable';
const cpuOf = (r: DeliveryResult) => r.cpuMicrosPerDelivery.service + r.cpuMicrosPerDelivery.postgres + r.cpuMicrosPerDelivery.redis;
/** The middle value; of an even count, the mean of the two middle ones. */
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * A broadcast of the same text plain and from a one-variable template (docs/api.md#liquid), on one
 * stack, alternating (plain first in odd rounds), after one of each to warm up. Each installation
 * of the template send is rendered with its own user_id, so nothing is shared between renderings.
 */
export async function measureTemplatePair(
  stack: Stack,
  seeded: Seeded,
  options: { rounds: number; timeoutMs: number; log: (line: string) => void },
): Promise<TemplatePair> {
  const res = await fetch(`http://127.0.0.1:${stack.apiPort}/api/v1/templates/${KEY}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench', notification: { title: TITLE, body: `${BODY} {{ user_id }}` } }),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`PUT /templates answered ${res.status}: ${await res.text()}`);
  const send = (template: boolean) =>
    measureDelivery(stack, seeded, {
      requestUsers: 10_000,
      timeoutMs: options.timeoutMs,
      broadcast: true,
      // JSON drops the undefined `notification`: a template send carries none.
      body: template ? { notification: undefined, template: { key: KEY } } : { notification: { title: TITLE, body: `${BODY} user` } },
    });
  await send(false);
  await send(true);
  const plain: DeliveryResult[] = [];
  const templated: DeliveryResult[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    for (const template of round % 2 === 1 ? [false, true] : [true, false]) {
      const result = await send(template);
      (template ? templated : plain).push(result);
      options.log(
        `templates: round ${round}, ${template ? 'template' : 'plain'}: ${Math.round(cpuOf(result))} us per delivery, peak RSS ${Math.round(result.workerPeakRssMb)} MB`,
      );
    }
  }
  const plainCpu = median(plain.map(cpuOf));
  const templateCpu = median(templated.map(cpuOf));
  return {
    rounds: options.rounds,
    plainCpuMicros: plainCpu,
    templateCpuMicros: templateCpu,
    ratio: templateCpu / plainCpu,
    roundRatios: templated.map((t, i) => cpuOf(t) / cpuOf(plain[i])),
    plainPeakRssMb: Math.max(...plain.map((r) => r.workerPeakRssMb)),
    templatePeakRssMb: Math.max(...templated.map((r) => r.workerPeakRssMb)),
    deliveries: templated[0].accepted + templated[0].failed,
  };
}
