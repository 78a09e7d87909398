import type { RawExchange, RawRoute } from '@platform/platform';
import type { ClicksService } from './clicks.service';

/**
 * `GET|HEAD /r/{code}` whose code is written in the characters of a link token (nothing to
 * percent-decode), with or without a query. Any other path under /r goes through ClicksController.
 */
const CLICK_PATH = /^\/r\/([0-9A-Za-z]{10,64})\/?(?:\?|$)/;

/**
 * The click redirect answered before Express and Nest (@platform/platform's installRawRoutes): the same work and
 * answer as ClicksController.redirect — the click stored before the 302 to the target (Express's
 * `res.redirect`, RawExchange.redirect), an unknown code 404 in the app's error shape.
 */
export function clickRawRoute(clicks: ClicksService): RawRoute {
  return {
    match: (method, url) => ((method === 'GET' || method === 'HEAD') && CLICK_PATH.test(url) ? '/r/:code' : null),
    handle: ({ req, ip, redirect, fail }: RawExchange) => {
      const code = CLICK_PATH.exec(req.url)![1];
      clicks.click(code, ip() ?? null, req.headers['user-agent'] ?? null).then(
        (url) => {
          try {
            redirect(302, url);
          } catch (err) {
            fail(err);
          }
        },
        fail,
      );
    },
  };
}
