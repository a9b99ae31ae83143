export async function atomFeed(): Promise<string> { return ''; }
export async function rssFeed(): Promise<string> { return ''; }
