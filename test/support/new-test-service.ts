import 'reflect-metadata';
import type { InjectionToken, Type } from '@nestjs/common';
import { PARAMTYPES_METADATA, SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants';
import { Clock } from '../../src/common/time';
import { EnvironmentVariables } from '../../src/config/env';
import { MetricsService } from '../../src/metrics/metrics.service';
import { TestClock } from './test-clock';

// The unit tier's way to build a service (as Immich's test/utils.ts `newTestService`): every
// collaborator the constructor asks for is resolved from Nest's metadata and replaced by a fake,
// so a spec names only what it looks at. Nothing here opens PostgreSQL or Redis.

/** The one variable without a default: a fixed 32-byte key, so sealed values and cursors are repeatable. */
export const TEST_APP_KEY = Buffer.alloc(32, 7).toString('base64');

/** A value that replaces a collaborator's automatic fake, as a Nest value provider. */
export interface ValueOverride {
  provide: InjectionToken;
  useValue: unknown;
}

export interface TestServiceOverrides {
  /** Values used instead of the automatic fakes, e.g. an in-memory repository. */
  providers?: ValueOverride[];
  /** Collaborators built for real (their own collaborators resolved the same way), e.g. a rule class. */
  real?: Type[];
  /** Configuration over EnvironmentVariables' defaults (the class defaults, not process.env). */
  env?: Partial<EnvironmentVariables>;
}

/** A collaborator whose methods are jest mocks (properties, so `expect(fake.method)` reads naturally). */
export type Fake<D> = {
  [K in keyof D]: D[K] extends (...args: infer A) => infer R ? jest.Mock<R, A> & D[K] : D[K];
};

/** The fakes the service was given, by the token it asked for. */
export class ServiceMocks {
  constructor(private readonly byToken: Map<InjectionToken, unknown>) {}

  /** The fake (or override, or real instance) the service received for `token`; throws when it asked for none. */
  get<D>(token: Type<D> | InjectionToken): Fake<D> {
    if (!this.byToken.has(token)) throw new Error(`the service under test does not depend on ${nameOf(token)}`);
    return this.byToken.get(token) as Fake<D>;
  }
}

export interface TestService<T> {
  /** The service under test. */
  sut: T;
  mocks: ServiceMocks;
  /** The Clock every built class received: real time until the test advances it. */
  clock: TestClock;
  /** The configuration every built class received; a test may change it between calls. */
  env: EnvironmentVariables;
}

/**
 * Builds `Service` with a fake of each collaborator: every method of a class collaborator is a
 * `jest.fn()` (answering undefined until the test says otherwise). Always real: the Clock (a
 * TestClock), EnvironmentVariables (defaults, TEST_APP_KEY, then `overrides.env`) and MetricsService (a registry
 * per instance). A token that is not a class (an interface, `@Inject('NAME')`) needs an override,
 * except an array, which is empty.
 */
export function newTestService<T>(Service: Type<T>, overrides: TestServiceOverrides = {}): TestService<T> {
  const clock = new TestClock();
  const env = Object.assign(new EnvironmentVariables(), { APP_KEY: TEST_APP_KEY }, overrides.env);
  const real = new Set<InjectionToken>([Service, MetricsService, ...(overrides.real ?? [])]);
  const built = new Map<InjectionToken, unknown>([
    [Clock, clock],
    [TestClock, clock],
    [EnvironmentVariables, env],
  ]);
  for (const { provide, useValue } of overrides.providers ?? []) built.set(provide, useValue);
  const given = new Map<InjectionToken, unknown>();

  const resolve = (token: InjectionToken, designType: unknown, path: string[]): unknown => {
    if (built.has(token)) return built.get(token);
    let value: unknown;
    if (typeof token === 'function' && real.has(token)) value = construct(token as Type, path);
    else if (typeof token === 'function' && token !== Object && token !== Array) value = automock(token as Type);
    else if (designType === Array) value = [];
    else throw new Error(`${path.join(' -> ')}: give ${nameOf(token)} as { provide, useValue } in overrides.providers`);
    built.set(token, value);
    return value;
  };

  const construct = (Class: Type, path: string[]): unknown => {
    const at = [...path, Class.name];
    return new Class(...dependencies(Class, at).map(({ token, designType }) => resolve(token, designType, at)));
  };

  const sut = new Service(
    ...dependencies(Service, [Service.name]).map(({ token, designType }) => {
      const value = resolve(token, designType, [Service.name]);
      given.set(token, value);
      return value;
    }),
  );
  return { sut, mocks: new ServiceMocks(given), clock, env };
}

/** What a class's constructor asks Nest for: its parameter types, with `@Inject(token)` taking precedence. */
function dependencies(Class: Type, path: string[]): { token: InjectionToken; designType: unknown }[] {
  const types = (Reflect.getMetadata(PARAMTYPES_METADATA, Class) ?? []) as unknown[];
  const declared = (Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, Class) ?? []) as { index: number; param: unknown }[];
  return types.map((designType, index) => {
    let token = declared.find((d) => d.index === index)?.param ?? designType;
    if (token && typeof token === 'object' && 'forwardRef' in token) token = (token as { forwardRef: () => unknown }).forwardRef();
    if (token === undefined) throw new Error(`${path.join(' -> ')}: parameter ${index} has no type at decoration time (an import cycle?)`);
    return { token: token as InjectionToken, designType };
  });
}

/** An object with a `jest.fn()` for every method `Class` and its ancestors declare. */
function automock<D>(Class: Type<D>): Fake<D> {
  const mock: Record<string, jest.Mock> = {};
  for (let proto = Class.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
      if (name === 'constructor' || name in mock || typeof descriptor.value !== 'function') continue;
      mock[name] = jest.fn().mockName(`${Class.name}.${name}`);
    }
  }
  return mock as unknown as Fake<D>;
}

function nameOf(token: InjectionToken): string {
  return typeof token === 'function' ? token.name : String(token);
}
