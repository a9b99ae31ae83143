/**
 * A blog's redirects as the reading site and an import use them: the site's look-up of an old address, the page of
 * them an export writes, and an import's store of the ones it makes (resources/redirects.ts). Apart from store.ts
 * because a replica in a browser imports that module, and whatever it names joins the replica's first download.
 */
export { redirectOf, redirectsAfter, storeRedirects } from '../resources/redirects.js';
