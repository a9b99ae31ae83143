/**
 * The `blogcore` command. Each command is one entry of COMMANDS (its usage, its options, what it runs), so a new
 * one (e.g. `import`/`export`) is one more entry and a file beside this one. Node only; it imports the library by
 * its package name, so the built command uses dist/'s entry points rather than a copy of them.
 */
import { createRequire } from 'node:module';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { COMMENT_COMMANDS } from './comments.js';
import { CliError, didYouMean, UsageError } from './errors.js';
import { IO_COMMANDS } from './io.js';
import { MEDIA_COMMANDS } from './media.js';
import { REDIRECT_COMMANDS } from './redirects.js';
import { SERVER_LIMITS, serve } from './serve.js';
import { redactSecrets } from './store.js';
import { token } from './token.js';
import { usersList } from './users.js';

const VERSION = (createRequire(import.meta.url)('blogcore/package.json') as { version: string }).version;

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | string[] | undefined>;

interface Command {
  usage: string;
  options: Options;
  /** Takes arguments besides its flags (`import <file>`). */
  positionals?: boolean;
  run(values: Values, positionals: string[]): Promise<void>;
}

const DB_HELP =
  '--db <file|url>   the SQLite file (default ./data/blog.db), or a postgres://user:pass@host/db[?schema=name] URL';

const COMMANDS: Record<string, Command> = {
  serve: {
    usage: `blogcore serve [--db <file>] [--replica <url>] [--port <n>] [--host <addr>] [--api-base-url <url>] [--quiet] [--max-connections <n>] [--cors <origin>] [--site] [--blog <id|url>] [--trust-proxy <hops|addr,cidr,…>]
      Serves the Blogger v3 API under /v3 and the pictures under /media (default 127.0.0.1:8080). The first
      run on an empty store creates a demo blog and prints a bearer token for its admin; a store that holds
      blogs is served as it is.
      ${DB_HELP}
      --replica <url>   a streaming replica of the postgres:// --db to read from (repeat for more); each
                        client still reads its own writes (docs/postgres.md)
      --api-base-url    the public URL clients use, when behind a proxy (links and selfLinks start with it)
      --quiet           no log line per request
      --max-connections connections served at once (default ${SERVER_LIMITS.maxConnections})
      --cors <origin>   let web pages from this origin call the API (e.g. http://127.0.0.1:5173 for the
                        browser editor); repeat for more origins, * for any
      --site            serve the reading site of every blog of the store beside the API (under /v3): each
                        blog by the request's Host and path, and on this machine at the address the banner
                        prints (the only blog at its path, or an index page linking each blog)
      --blog <id|url>   serve the site of this blog only, whatever the Host
      --trust-proxy     the proxies in front of this server whose X-Forwarded-For names the client (for the
                        comment limits): a hop count (1: one load balancer) or their addresses and CIDRs,
                        comma-separated (docs/comments.md). Default none: the header is ignored`,
    options: {
      db: { type: 'string', default: './data/blog.db' },
      replica: { type: 'string', multiple: true },
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      'api-base-url': { type: 'string' },
      quiet: { type: 'boolean', short: 'q', default: false },
      'max-connections': { type: 'string', default: String(SERVER_LIMITS.maxConnections) },
      cors: { type: 'string', multiple: true },
      site: { type: 'boolean', default: false },
      'trust-proxy': { type: 'string' },
      blog: { type: 'string' },
    },
    run(values) {
      const trustProxy = trustProxyOf(values['trust-proxy'] as string | undefined);
      const port = integer('--port', values.port, 0, 65535);
      const maxConnections = integer('--max-connections', values['max-connections'], 1, 1_000_000);
      const apiBaseUrl = (values['api-base-url'] as string | undefined)?.replace(/\/+$/, '');
      if (apiBaseUrl !== undefined && !/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(apiBaseUrl)) {
        throw new UsageError(
          `--api-base-url: an http(s) URL such as https://blog.example.com, not ${values['api-base-url']}`,
        );
      }
      const cors = (values.cors as string[] | undefined) ?? [];
      for (const origin of cors) {
        if (origin !== '*' && !/^https?:\/\/[^/?#\s]+$/.test(origin))
          throw new UsageError(
            `--cors: an origin such as http://127.0.0.1:5173 (scheme, host, port; no path), or *, not ${origin}`,
          );
      }
      const replicas = (values.replica as string[] | undefined) ?? [];
      for (const url of replicas) {
        if (!/^postgres(ql)?:\/\//i.test(url))
          throw new UsageError(`--replica: a postgres:// URL of a streaming replica, not ${url}`);
      }
      if (replicas.length && !/^postgres(ql)?:\/\//i.test(values.db as string))
        throw new UsageError('--replica: only with a postgres:// --db');
      return serve({
        db: values.db as string,
        replicas,
        cors,
        port,
        host: values.host as string,
        quiet: values.quiet === true,
        maxConnections,
        site: values.site === true || values.blog !== undefined,
        ...(values.blog !== undefined ? { blog: values.blog as string } : {}),
        version: VERSION,
        ...(apiBaseUrl ? { apiBaseUrl } : {}),
        ...(trustProxy !== undefined ? { trustProxy } : {}),
      });
    },
  },
  token: {
    usage: `blogcore token [--db <file>] [--user <id>]
      Prints a new bearer token for a user of the store; that user's previous token stops working.
      ${DB_HELP}
      --user <id>       the user the token signs in as (default: the demo admin serve's first run made)`,
    options: { db: { type: 'string', default: './data/blog.db' }, user: { type: 'string' } },
    run: (values) => token(values.db as string, values.user as string | undefined),
  },
  users: {
    usage: `blogcore users list [--db <file>]
      Lists every user with a role in a blog: their id, name, roles, and whether they hold a token.`,
    options: { db: { type: 'string', default: './data/blog.db' } },
    positionals: true,
    run(values, positionals) {
      if (positionals.length !== 1 || positionals[0] !== 'list')
        throw new UsageError(`users: the one subcommand is list${positionals[0] ? `, not ${positionals[0]}` : ''}`);
      return usersList(values.db as string);
    },
  },
  ...IO_COMMANDS,
  ...MEDIA_COMMANDS,
  ...REDIRECT_COMMANDS,
  ...COMMENT_COMMANDS,
};

const USAGE = `blogcore ${VERSION}

Usage:
  ${Object.values(COMMANDS)
    .map((c) => c.usage)
    .join('\n  ')}
  blogcore --version | --help
`;

function integer(flag: string, text: unknown, min: number, max: number): number {
  const n = Number(text);
  if (typeof text !== 'string' || !/^\d+$/.test(text) || n < min || n > max) {
    throw new UsageError(`${flag}: not a ${flag === '--port' ? 'port number' : 'number'}: ${String(text)}`);
  }
  return n;
}

/** The command being run, for a usage error's pointer to its help. */
let current: string | undefined;

/** One command's usage and options, as `blogcore <command> --help` prints it. */
const helpOf = (name: string) => `blogcore ${VERSION}\n\nUsage:\n  ${COMMANDS[name]!.usage}\n`;

async function main(argv: readonly string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') {
    console.log(VERSION);
    return;
  }
  if (first === 'help' && rest.length === 1 && Object.hasOwn(COMMANDS, rest[0]!)) {
    console.log(helpOf(rest[0]!));
    return;
  }
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    console.log(USAGE);
    return;
  }
  const names = Object.keys(COMMANDS);
  const command = Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  if (!command) {
    throw new UsageError(
      first.startsWith('-')
        ? `unknown option ${first}${didYouMean(first, ['--help', '--version'])}`
        : `unknown command "${first}"${didYouMean(first, names)}`,
    );
  }
  current = first;
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: command.positionals === true,
    }));
  } catch (error) {
    // Node's parser explains itself at length; name the argument (and what was meant) instead.
    const code = (error as { code?: string }).code;
    const arg = /'([^']*)'/.exec((error as Error).message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flags = [...Object.keys(command.options), 'help'].map((o) => `--${o}`);
      throw new UsageError(`unknown option ${arg} for ${first}${didYouMean(arg.split('=')[0]!, flags)}`);
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
      throw new UsageError(`unexpected argument ${arg} for ${first}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      throw new UsageError(`${(error as Error).message.replace(/^Option /, 'option ')}`);
    throw error;
  }
  if (values.help) {
    console.log(helpOf(first));
    return;
  }
  await command.run(values, positionals);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    // One line: the problem, and where the command's whole usage is.
    const help = current ? `blogcore ${current} --help` : 'blogcore --help';
    console.error(redactSecrets(`blogcore: ${error.message.split('\n')[0]}; see \`${help}\``));
    process.exit(2);
  }
  console.error(
    redactSecrets(`blogcore: ${error instanceof CliError || error instanceof Error ? error.message : String(error)}`),
  );
  process.exit(1);
});

/** `--trust-proxy`: a hop count, or a comma-separated list of addresses and CIDRs. */
function trustProxyOf(value: string | undefined): number | string[] | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return integer('--trust-proxy', value, 0, 100);
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  // (The handler checks each one fully when the server starts.)
  if (list.length === 0 || list.some((a) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(a)))
    throw new UsageError(`--trust-proxy: a hop count or addresses and CIDRs such as 10.0.0.0/8,::1, not ${value}`);
  return list;
}
