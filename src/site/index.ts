/**
 * `blogcore/site`: the public reading site of the blogs in a store, served live (`createSite`, a Fetch handler
 * beside blogcore/http's) or written as static files (`exportSite`, incremental from the change feed).
 * No Node built-ins: it runs wherever the HTTP helper does.
 */
export { createSite, type SiteHandler, type SiteOptions } from './handler.js';
export {
  exportSite,
  type SiteExportOptions,
  type SiteExportReport,
  type SiteFiles,
  type SiteManifest,
  type SkippedFile,
} from './export.js';
export { defaultTheme } from './default-theme.js';
export { rotateCommentFormKey } from './form-token.js';
export type { ClientAddressOptions, TrustProxy } from '../web/client-address.js';
export { html, raw, escapeHtml, Html, type Interpolation } from './html.js';
export type {
  Theme,
  LayoutData,
  SiteBlog,
  Link,
  Person,
  Published,
  PostSummary,
  PostView,
  PageView,
  ListView,
  CommentView,
  CommentForm,
  CommentsPageView,
} from './theme.js';
export type { ChunkState } from './export-lists.js';
