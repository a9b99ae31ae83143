/** Shared by the crash writer (a child process) and the test that checks its file. */
export const CRASH_BLOG_URL = 'https://crash.example/';
export const CRASH_LABELS = ['news', 'tech', 'café', 'life', 'notes', 'misc'];
