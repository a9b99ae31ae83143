/**
 * The OpenAPI 3.1 document of every route, generated from the route table (paths, methods, wire parameters,
 * bodies, ETag and If-Match) and the parameter schemas (types, bounds, enums), so it cannot drift from what
 * the helper serves. Served at `{basePath}/openapi.json`. Operations that are not Blogger v3 methods carry
 * `x-blogcore-extension: true`. Each answer names its wire resource (components.schemas, by `kind`). The
 * parameter and body schemas are zod's own rendering of the schemas the service checks (`z.toJSONSchema`).
 */
import { toJSONSchema } from 'zod/mini';
import { params } from '../schema/index.js';
import { mediaParams } from '../schema/media.js';
import { collabParams } from '../schema/collab.js';
import { PRESENCE_CLOCK_HEADER, PRESENCE_HEADER, POSITION_HEADER } from './collab.js';
import { UNSPECIFIED } from './override.js';
import { mediaBase } from '../web/media.js';
import { ROUTES, type ParamKind, type Route } from './routes.js';

type Doc = Record<string, unknown>;
/** The slice of JSON Schema the OpenAPI document uses. */
type JsonSchema = { [key: string]: unknown };

/** The wire resources (src/core/wire.ts) by component name: their `kind`, and for lists the component of an item. */
const RESOURCES: Record<string, { kind: string; item?: string }> = {
  Blog: { kind: 'blogger#blog' },
  BlogList: { kind: 'blogger#blogList', item: 'Blog' },
  User: { kind: 'blogger#user' },
  Post: { kind: 'blogger#post' },
  PostList: { kind: 'blogger#postList', item: 'Post' },
  Page: { kind: 'blogger#page' },
  PageList: { kind: 'blogger#pageList', item: 'Page' },
  Comment: { kind: 'blogger#comment' },
  CommentList: { kind: 'blogger#commentList', item: 'Comment' },
  BlogUserInfo: { kind: 'blogger#blogUserInfo' },
  PostUserInfo: { kind: 'blogger#postUserInfo' },
  PostUserInfosList: { kind: 'blogger#postList', item: 'PostUserInfo' },
  PageViews: { kind: 'blogger#page_views' },
  LabelList: { kind: 'blogcore#labelList', item: 'Label' },
  Label: { kind: 'blogcore#label' },
  Revision: { kind: 'blogcore#revision' },
  RevisionList: { kind: 'blogcore#revisionList', item: 'Revision' },
  ChangeList: { kind: 'blogcore#changeList' },
  Media: { kind: 'blogcore#media' },
  MediaList: { kind: 'blogcore#mediaList', item: 'Media' },
};

/** Answers that are not resources (no `kind`): their schemas as they are. */
const RESULTS: Record<string, JsonSchema> = {
  CommentsModerateResult: {
    type: 'object',
    required: ['handled'],
    properties: { handled: { type: 'integer', minimum: 0 }, nextPageToken: { type: 'string' } },
  },
};

/** The component a route answers: by namespace, `…List` for lists, the rest by their method. */
function resourceOf([ns, method]: Route['op']): string {
  const special: Record<string, string> = {
    'blogs.listByUser': 'BlogList',
    'postUserInfos.list': 'PostUserInfosList',
    'postUserInfos.get': 'PostUserInfo',
    'blogUserInfos.get': 'BlogUserInfo',
    'pageViews.get': 'PageViews',
    'labels.list': 'LabelList',
    'changes.list': 'ChangeList',
    'comments.listByBlog': 'CommentList',
    'comments.moderate': 'CommentsModerateResult',
    'posts.search': 'PostList',
    'posts.revisions.restore': 'Post',
    'pages.revisions.restore': 'Page',
  };
  const base = {
    blogs: 'Blog',
    users: 'User',
    posts: 'Post',
    pages: 'Page',
    comments: 'Comment',
    'posts.revisions': 'Revision',
    'pages.revisions': 'Revision',
    media: 'Media',
  }[ns];
  const name = special[`${ns}.${method}`] ?? (base && (method === 'list' ? `${base}List` : base));
  if (!name || !(RESOURCES[name] || RESULTS[name])) throw new Error(`openapi: no resource for ${ns}.${method}`);
  return name;
}

function resourceSchema({ kind, item }: { kind: string; item?: string }): JsonSchema {
  return {
    type: 'object',
    required: ['kind'],
    properties: {
      kind: { const: kind },
      ...(item
        ? {
            items: { type: 'array', items: { $ref: `#/components/schemas/${item}` } },
            nextPageToken: { type: 'string' },
          }
        : {}),
    },
  };
}

const schemas: Record<string, (typeof params)[keyof typeof params]> = { ...params, ...mediaParams, ...collabParams };
const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** The parameter schema of a route's operation: `postsList` for posts.list; patch shares update's, actions share one. */
function operationSchema(route: Route): JsonSchema {
  const [dotted, method] = route.op;
  const ns = dotted
    .split('.')
    .map((part, i) => (i === 0 ? part : cap(part)))
    .join('');
  const found =
    schemas[ns + cap(method)] ?? (method === 'patch' ? schemas[`${ns}Update`] : undefined) ?? schemas[`${ns}Action`];
  if (!found) throw new Error(`openapi: no parameter schema for ${ns}.${method}`);
  // What a caller may send (the input side: enums before their values are normalised, lists before splitting).
  const { $schema: _, ...json } = toJSONSchema(found, { io: 'input' }) as JsonSchema;
  return json;
}

/** A body whose fields are the operation's parameters: its schema without the path's. */
function bodyFieldsOf(json: JsonSchema, route: Route): JsonSchema {
  const inPath = new Set([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!));
  const properties = Object.fromEntries(Object.entries(propertiesOf(json)).filter(([k]) => !inPath.has(k)));
  const required = ((json.required ?? []) as string[]).filter((k) => !inPath.has(k));
  return { ...json, properties, required };
}

const propertiesOf = (json: JsonSchema) => (json.properties ?? {}) as Record<string, JsonSchema>;

/** A query parameter's schema as the wire carries it (integers and booleans as their types, lists repeated). */
function querySchema(name: string, kind: ParamKind, json: JsonSchema | undefined): JsonSchema {
  const withUnspecified = (s: JsonSchema): JsonSchema =>
    Array.isArray(s.enum) && UNSPECIFIED[name] ? { ...s, enum: [...(s.enum as string[]), UNSPECIFIED[name]] } : s;
  switch (kind) {
    case 'int':
      return json?.type === 'integer' ? json : { type: 'integer', minimum: 0 };
    case 'bool':
      return { type: 'boolean' };
    case 'list':
      return { type: 'array', items: withUnspecified((json?.items as JsonSchema | undefined) ?? { type: 'string' }) };
    case 'csv':
      return { type: 'string', description: 'Comma-joined values; the parameter may also repeat.' };
    default:
      return withUnspecified(json && json.type === 'string' ? json : { type: 'string' });
  }
}

/** One route's operation: its parameters, request body and answers. */
function operation(route: Route): Doc {
  const json = operationSchema(route);
  return {
    operationId: route.op.join('.'),
    tags: [route.op[0]],
    parameters: parametersOf(route, json),
    ...requestBodyOf(route, json),
    responses: {
      ...answersOf(route),
      default: {
        description: "An error in Google's shape",
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
    ...(route.extension ? { 'x-blogcore-extension': true } : {}),
  };
}

/** A route's parameters: its path's, its query's (required as its schema says), the headers it reads. */
function parametersOf(route: Route, json: JsonSchema): Doc[] {
  const props = propertiesOf(json);
  const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1]!,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const query = Object.entries(route.query)
    .filter(([, kind]) => kind !== 'ignore')
    .map(([name, kind]) => ({
      name,
      in: 'query',
      // A shared document's GET without `since` opens it: nothing in its query is required.
      ...(!route.collab && (json.required as string[] | undefined)?.includes(name) ? { required: true } : {}),
      schema: querySchema(name, kind, props[name]),
      ...(kind === 'list' ? { style: 'form', explode: true } : {}),
    }));
  const headers = route.ifMatch
    ? [
        {
          name: 'If-Match',
          in: 'header',
          schema: { type: 'string' },
          description: 'The etag the change is based on (412 if stale).',
        },
      ]
    : route.upload
      ? [
          {
            name: 'Content-Disposition',
            in: 'header',
            schema: { type: 'string' },
            description: 'attachment; filename="…": the file name kept.',
          },
        ]
      : [];
  if (route.collab)
    headers.push({ name: PRESENCE_HEADER, in: 'header', schema: { type: 'string' }, description: PRESENCE });
  return [...pathParams, ...query, ...headers];
}

/** A route's request body, if it takes one: JSON (PATCH's fields or the operation's), a Yjs update, a picture. */
function requestBodyOf(route: Route, json: JsonSchema): Doc {
  const props = propertiesOf(json);
  return {
    ...(route.body
      ? {
          requestBody: {
            required: true,
            ...(route.method === 'PATCH'
              ? {
                  description:
                    'The fields to change; the others stay. `null` clears a field (as an update without it would).',
                }
              : {}),
            content: {
              'application/json': {
                schema: route.bodyFields ? bodyFieldsOf(json, route) : (props.body ?? { type: 'object' }),
              },
            },
          },
        }
      : {}),
    ...(route.collab && route.method === 'POST'
      ? {
          requestBody: {
            required: true,
            description: 'One Yjs update (empty: presence only)',
            content: { 'application/octet-stream': {} },
          },
        }
      : {}),
    ...(route.upload
      ? {
          requestBody: {
            required: true,
            description: 'The picture: its bytes decide its type',
            content: PICTURE_CONTENT,
          },
        }
      : {}),
  };
}

/** A route's answers but the error: a shared document's, 204, or the resource (and 304 where it has an ETag). */
function answersOf(route: Route): Doc {
  return route.collab
    ? collabAnswers(route)
    : route.noContent
      ? { '204': { description: 'Done' } }
      : {
          '200': {
            description: 'The resource',
            ...(route.etag ? { headers: { ETag: { schema: { type: 'string' } } } } : {}),
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${resourceOf(route.op)}` } } },
          },
          ...(route.method === 'GET' && route.etag ? { '304': { description: 'Not modified (If-None-Match)' } } : {}),
        };
}

const PRESENCE =
  'Presence (a y-protocols awareness update), base64: the sender’s on a request, everyone’s on an answer';

/** A shared document's answers (src/http/collab.ts): its bytes, or the position of a push. */
function collabAnswers(route: Route): Doc {
  const position = { [POSITION_HEADER]: { schema: { type: 'string' }, description: 'Where the answer stands' } };
  if (route.method === 'POST')
    return {
      '200': {
        description: 'Stored',
        headers: position,
        content: {
          'application/json': {
            schema: { type: 'object', required: ['position'], properties: { position: { type: 'string' } } },
          },
        },
      },
    };
  return {
    '200': {
      description: 'The document as one Yjs update (without `since`), or what is new since it (empty: nothing)',
      headers: {
        ...position,
        [PRESENCE_HEADER]: { schema: { type: 'string' }, description: PRESENCE },
        [PRESENCE_CLOCK_HEADER]: { schema: { type: 'string' }, description: 'Send it back as `presence`' },
      },
      content: { 'application/octet-stream': {} },
    },
  };
}

/** The picture types, as request and response content. */
const PICTURE_CONTENT = Object.fromEntries(
  ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif'].map((t) => [t, {}]),
);

/** The bytes of a picture (src/web/media.ts), served beside the base path: a path item with its own server. */
export const MEDIA_BYTES_PATH = '/{blogId}/{mediaId}/{filename}';
function mediaBytes(basePath: string): Doc {
  const op = (method: string): Doc => ({
    operationId: `media.bytes.${method}`,
    tags: ['media'],
    parameters: [
      ...['blogId', 'mediaId', 'filename'].map((name) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      ...['If-None-Match', 'Range', 'If-Range'].map((name) => ({ name, in: 'header', schema: { type: 'string' } })),
    ],
    responses: {
      '200': {
        description: 'The picture (ETag "<sha256>", cached for a year, immutable)',
        ...(method === 'get' ? { content: PICTURE_CONTENT } : {}),
      },
      '206': { description: 'The range asked for', ...(method === 'get' ? { content: PICTURE_CONTENT } : {}) },
      '304': { description: 'Not modified (If-None-Match)' },
      default: {
        description: "An error in Google's shape",
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
    'x-blogcore-extension': true,
  });
  return { servers: [{ url: mediaBase(basePath) }], get: op('get'), head: op('head') };
}

/** The OpenAPI 3.1 document of the routes under `basePath` (e.g. `/v3`). */
export function openApiDocument(basePath = '/v3'): Doc {
  const paths: Record<string, Record<string, Doc>> = {};
  for (const route of ROUTES) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  paths[MEDIA_BYTES_PATH] = mediaBytes(basePath) as Record<string, Doc>;
  return {
    openapi: '3.1.0',
    info: {
      title: 'blogcore',
      version: 'v3',
      description: 'The Blogger v3 interface served by blogcore, with its extensions marked x-blogcore-extension.',
    },
    servers: [{ url: basePath === '' ? '/' : basePath }],
    paths,
    components: {
      schemas: {
        ...Object.fromEntries(Object.entries(RESOURCES).map(([name, r]) => [name, resourceSchema(r)])),
        ...RESULTS,
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'errors'],
              properties: {
                code: { type: 'integer' },
                message: { type: 'string' },
                status: { type: 'string' },
                errors: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      domain: { type: 'string' },
                      reason: { type: 'string' },
                      message: { type: 'string' },
                      location: { type: 'string' },
                      locationType: { type: 'string' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}
