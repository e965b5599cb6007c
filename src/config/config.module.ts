import { Global, Module } from '@nestjs/common';
import { env, EnvironmentVariables } from './env';

/** Makes the validated environment injectable as `EnvironmentVariables`. */
@Global()
@Module({
  providers: [{ provide: EnvironmentVariables, useFactory: env }],
  exports: [EnvironmentVariables],
})
export class ConfigModule {}
