import { Module } from '@nestjs/common';
import { WebSdkController } from './web-sdk.controller';

/** The web SDK served by the api (docs/api.md#web-sdk). */
@Module({ controllers: [WebSdkController] })
export class SdkModule {}
