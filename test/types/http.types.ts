/**
 * Compile-time checks of the HTTP helper's options: `authenticate` and `onError` get a `RequestHead`, which has
 * no body under `toNodeHandler`, so a hook that needs a full Fetch `Request` must not compile.
 */
import type { BlogService } from '../../src/index.js';
import { createHttpHandler, type RequestHead } from '../../src/http/index.js';

declare const service: BlogService;

createHttpHandler(service, {
  authenticate: (request: RequestHead) => (request.headers.get('authorization') ? { userId: 'ada' } : null),
  onError: (_error: unknown, request: RequestHead) => void request.url,
});

createHttpHandler(service, {
  // @ts-expect-error a hook typed for a full Request would call request.text() on a head without a body
  authenticate: async (request: Request) => ((await request.text()) ? { userId: 'ada' } : null),
});

createHttpHandler(service, {
  // @ts-expect-error the same for onError
  onError: (_error: unknown, request: Request) => void request.clone(),
});
