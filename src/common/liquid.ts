import { Liquid, Tag, type FS, type Template, type TagToken, type TopLevelToken } from 'liquidjs';

/**
 * Liquid for notification texts (docs/api.md#liquid), through liquidjs: a template reads only the
 * variables it is given. No file system (every lookup is refused), no include, render or layout
 * tags, own properties only, and per rendering a time, a work and a memory limit besides the size of
 * what it writes.
 */

/** Each rendering's limits: milliseconds, tags and outputs rendered, bytes of new strings, characters written. */
export const LIQUID_LIMITS = { renderMs: 200, templates: 10_000, memory: 1_000_000, output: 16_384, parse: 50_000 } as const;

const NO_FILES = 'A template reads only its variables: it has no files.';

const refusingFs: FS = {
  exists: () => Promise.resolve(false),
  existsSync: () => false,
  readFile: () => Promise.reject(new Error(NO_FILES)),
  readFileSync: () => {
    throw new Error(NO_FILES);
  },
  resolve: (_dir, file) => file,
  contains: () => Promise.resolve(false),
  containsSync: () => false,
};

const engine = new Liquid({
  fs: refusingFs,
  relativeReference: false,
  dynamicPartials: false,
  ownPropertyOnly: true,
  strictVariables: false,
  strictFilters: true,
  parseLimit: LIQUID_LIMITS.parse,
  renderLimit: LIQUID_LIMITS.renderMs,
  memoryLimit: LIQUID_LIMITS.memory,
  cache: false,
});

for (const name of ['include', 'render', 'layout', 'block']) {
  engine.registerTag(
    name,
    class extends Tag {
      constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid) {
        super(token, remain, liquid);
        throw new Error(`the ${name} tag is not available: a template reads only its variables`);
      }
      *render(): Generator<unknown, void, unknown> {}
    },
  );
}

/** A text with Liquid in it, parsed once. */
export type ParsedLiquid = Template[];

/** Whether a text has any Liquid markup: a text without it is sent as it is, at no cost. */
export const hasLiquid = (text: string | null | undefined): boolean => !!text && (text.includes('{{') || text.includes('{%'));

/** The parser's message, or null when `text` parses. */
export function liquidProblem(text: string): string | null {
  try {
    engine.parse(text);
    return null;
  } catch (error) {
    return firstLine((error as Error).message);
  }
}

/** Throws the parser's error; callers check with liquidProblem first. */
export const parseLiquid = (text: string): ParsedLiquid => engine.parse(text);

export class LiquidRenderError extends Error {}

/** Renders with only `scope`; throws LiquidRenderError (its message in plain words) on any failure or limit. */
export function renderLiquid(parsed: ParsedLiquid, scope: object): string {
  let out: unknown;
  try {
    out = engine.renderSync(parsed, scope, { templateLimit: LIQUID_LIMITS.templates });
  } catch (error) {
    throw new LiquidRenderError(firstLine((error as Error).message));
  }
  const text = String(out);
  if (text.length > LIQUID_LIMITS.output) throw new LiquidRenderError(`the rendered text is longer than ${LIQUID_LIMITS.output} characters`);
  return text;
}

const firstLine = (message: string) => message.split('\n')[0];

/** The texts of a notification's content that are Liquid (docs/api.md#liquid), each with its field path under `prefix`. */
export interface LiquidTexts {
  title?: string | null;
  body?: string | null;
  image_url?: string | null;
  action_url?: string | null;
  localizations?: Record<string, { title?: string; body?: string; image_url?: string; action_url?: string }> | null;
}

export const TEXT_FIELDS = ['title', 'body', 'image_url', 'action_url'] as const;

/** A 422's errors for each text that does not parse, at its path with the parser's message; empty when all parse. */
export function liquidErrors(content: LiquidTexts, prefix: string, localizationsPrefix = `${prefix}.localizations`): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const check = (text: string | null | undefined, path: string) => {
    const problem = hasLiquid(text) ? liquidProblem(text!) : null;
    if (problem) errors[path] = [`The ${path} field is not a valid Liquid template: ${problem}.`];
  };
  for (const field of TEXT_FIELDS) check(content[field], `${prefix}.${field}`);
  for (const [tag, fields] of Object.entries(content.localizations ?? {})) {
    for (const field of TEXT_FIELDS) check(fields[field], `${localizationsPrefix}.${tag}.${field}`);
  }
  return errors;
}
