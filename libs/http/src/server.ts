import type { Express, Request, Response } from 'express';
import { createServer, IncomingMessage, ServerResponse, type Server, type ServerOptions } from 'node:http';

const classes = new WeakMap<Express, ServerOptions>();

/**
 * The node:http server of an Express app, whose requests and responses are born with the app's
 * request and response prototypes. Express gives each incoming pair those prototypes by
 * Object.setPrototypeOf, which leaves V8 with objects whose shape changed after construction: every
 * later property access on them in Node's HTTP code and in the app takes a slow path (on this
 * machine a one-route Express app spent 180 µs of CPU per request that way, and 70 µs without).
 * Constructed with the right prototypes, Express's own setPrototypeOf finds nothing to change.
 */
export function createAppServer(app: Express): Server {
  let pair = classes.get(app);
  if (!pair) {
    class AppRequest extends IncomingMessage {}
    class AppResponse extends ServerResponse {}
    // The app's prototypes stay in the chain (Express's methods, the app's own `ip` getter), with
    // the subclasses' prototypes standing in for them.
    Object.setPrototypeOf(AppRequest.prototype, app.request);
    Object.setPrototypeOf(AppResponse.prototype, app.response);
    app.request = AppRequest.prototype as unknown as Request;
    app.response = AppResponse.prototype as unknown as Response;
    pair = { IncomingMessage: AppRequest, ServerResponse: AppResponse as typeof ServerResponse };
    classes.set(app, pair);
  }
  return createServer(pair, app);
}
