/** What every page of a site needs, from a service and the site's options: the anonymous reader, the store reads, the theme. */
import type { BlogService } from '../service/types.js';
import { defaultTheme } from './default-theme.js';
import type { SiteParts } from './render.js';
import { storeOf } from './store.js';
import { formTokens } from './form-token.js';
import type { Theme } from './theme.js';

/** The whole theme: the default's parts with the given ones over them. */
export function themeOf(theme: Partial<Theme> | undefined): Theme {
  const out = { ...defaultTheme };
  for (const [k, v] of Object.entries(theme ?? {}))
    if (typeof v === 'function') (out as Record<string, unknown>)[k] = v;
  return out;
}

/** The parts every page needs: the anonymous reader, the store reads, the theme and the page size. */
export function siteParts(
  service: BlogService,
  options: { theme?: Partial<Theme> | undefined; pageSize?: number | undefined },
): SiteParts {
  if (typeof service?.as !== 'function') throw new TypeError('createSite needs a BlogService (from createBlogService)');
  let reader: BlogService;
  try {
    reader = service.as(null);
  } catch {
    throw new TypeError('createSite needs the host service (createBlogService(…)), not one scoped with as()');
  }
  const pageSize = options.pageSize ?? 10;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 50)
    throw new TypeError('pageSize must be an integer from 1 to 50');
  return { reader, store: storeOf(service), theme: themeOf(options.theme), pageSize, tokens: formTokens(service) };
}
