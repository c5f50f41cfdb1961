import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as BoardsProto } from './generated/boards_service';
import type { ProtoGrpcType as MembershipProto } from './generated/membership_service';
import type { ProtoGrpcType as FilesProto } from './generated/files_service';
import type { ProtoGrpcType as WebhooksProto } from './generated/webhooks_service';
import type * as boards from './generated/boards.barrel';

/**
 * The one set of loader options. The `generate` script passes the same flags to proto-loader-gen-types,
 * so the generated types describe exactly the objects these options produce at run time.
 * longs: Number (not the usual String): every int64 here is an id or a byte count far below 2^53,
 * and the HTTP API exposes them as JSON numbers anyway.
 */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [path.join(__dirname, '..')],
};

function load<T>(file: string): T {
  const definition = protoLoader.loadSync(file, PROTO_LOADER_OPTIONS);
  return grpc.loadPackageDefinition(definition) as unknown as T;
}

export const loadBoardsProto = (): BoardsProto =>
  load<BoardsProto>('flowboard/boards/v1/boards_service.proto');
export const loadMembershipProto = (): MembershipProto =>
  load<MembershipProto>('flowboard/membership/v1/membership_service.proto');
export const loadFilesProto = (): FilesProto => load<FilesProto>('flowboard/files/v1/files_service.proto');
export const loadWebhooksProto = (): WebhooksProto =>
  load<WebhooksProto>('flowboard/webhooks/v1/webhooks_service.proto');

/**
 * The one service boards' RPCs were before they were split by aggregate: the same methods with the same messages.
 * boards serves every method under this name as well, and the gateway calls it, so that a rolling upgrade from a
 * release before the split never meets UNIMPLEMENTED while old and new pods mix. The next release moves the
 * gateway to the six services; the one after drops this alias (expand, then contract).
 */
export const BOARDS_LEGACY_SERVICE = 'flowboard.boards.v1.BoardsService';

/** boards' services, one per aggregate (the client constructors; each has its definition as `service`). */
export function loadBoardsServices() {
  const v1 = loadBoardsProto().flowboard.boards.v1;
  return [
    v1.StoriesService,
    v1.PhasesService,
    v1.TagsService,
    v1.TasksService,
    v1.CommentsService,
    v1.HistoryService,
  ];
}

/** The six boards services' methods under the legacy name (paths `/flowboard.boards.v1.BoardsService/<Method>`). */
export function boardsLegacyDefinition(): grpc.ServiceDefinition {
  const methods: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const Service of loadBoardsServices()) {
    for (const [name, method] of Object.entries(Service.service))
      methods[name] = { ...method, path: `/${BOARDS_LEGACY_SERVICE}/${name}` };
  }
  return methods;
}

/** Every boards RPC, typed as the six generated clients are, on the legacy service. */
export type BoardsLegacyClient = boards.StoriesServiceClient &
  boards.PhasesServiceClient &
  boards.TagsServiceClient &
  boards.TasksServiceClient &
  boards.CommentsServiceClient &
  boards.HistoryServiceClient;

export function loadBoardsLegacyService(): (new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
) => BoardsLegacyClient) & { service: grpc.ServiceDefinition } {
  return grpc.makeClientConstructor(boardsLegacyDefinition(), 'BoardsService') as never;
}

export * as boards from './generated/boards.barrel';
export * as membership from './generated/membership.barrel';
export * as files from './generated/files.barrel';
export * as webhooks from './generated/webhooks.barrel';
