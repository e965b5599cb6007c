import { Controller, Get, Headers, HttpStatus, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { NotFoundError } from '../common/errors';
import { loadWebSdk, WebSdkName } from './web-sdk-files';

/**
 * Cached by browsers and CDNs for 5 minutes, then revalidated by ETag (a 304 costs a few bytes), so a
 * new release of the service reaches pages within minutes without renaming the files (docs/api.md#web-sdk).
 */
export const WEB_SDK_CACHE_CONTROL = 'public, max-age=300';

const DESCRIPTIONS: Record<WebSdkName, string> = {
  'pns.js': "The web SDK for a `<script>` tag (a global `Pns`): clients/web's `pns.iife.js`, as this version of the service was built with.",
  'pns-sw.js':
    "The web SDK's service worker part (a global `PnsWorker`), for `importScripts()` in your site's own service worker: clients/web's `worker.iife.js`.",
};

/** `GET /sdk/v1/pns.js` and `GET /sdk/v1/pns-sw.js` (docs/api.md#web-sdk): public, cacheable, the same origin for every page. */
@Controller('sdk/v1')
@Public()
@ApiTags('web SDK')
export class WebSdkController {
  private readonly files = loadWebSdk();

  @Get('pns.js')
  @ApiOperation({ summary: 'The web SDK, script-tag build', description: DESCRIPTIONS['pns.js'] })
  @SdkResponses()
  script(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() res: Response): void {
    this.send('pns.js', ifNoneMatch, res);
  }

  @Get('pns-sw.js')
  @ApiOperation({ summary: "The web SDK's service worker script", description: DESCRIPTIONS['pns-sw.js'] })
  @SdkResponses()
  worker(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() res: Response): void {
    this.send('pns-sw.js', ifNoneMatch, res);
  }

  private send(name: WebSdkName, ifNoneMatch: string | undefined, res: Response): void {
    const file = this.files.get(name);
    if (!file) throw new NotFoundError();
    // Any origin may load it, and check it with `integrity` (which needs CORS for a script of another origin).
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', WEB_SDK_CACHE_CONTROL);
    res.setHeader('ETag', file.etag);
    if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag)) {
      res.status(HttpStatus.NOT_MODIFIED).end();
      return;
    }
    res.type('text/javascript; charset=utf-8').send(file.body);
  }
}

function SdkResponses(): MethodDecorator {
  return (target, key, descriptor) => {
    ApiProduces('text/javascript')(target, key, descriptor);
    ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a copy held: 304 when it is current.' })(target, key, descriptor);
    ApiResponse({ status: 200, description: 'The script; `Cache-Control: public, max-age=300`, a strong `ETag`, `Access-Control-Allow-Origin: *`.' })(
      target,
      key,
      descriptor,
    );
    ApiResponse({ status: 304, description: 'The copy named by `If-None-Match` is current.' })(target, key, descriptor);
  };
}
