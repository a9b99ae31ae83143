/** True in builds, which ship `sw.js` (see vite.config.ts). */
declare const __SERVICE_WORKER__: boolean;
