import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as BoardsProto } from './generated/boards_service';
import type { ProtoGrpcType as MembershipProto } from './generated/membership_service';
import type { ProtoGrpcType as FilesProto } from './generated/files_service';

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

export * as boards from './generated/boards.barrel';
export * as membership from './generated/membership.barrel';
export * as files from './generated/files.barrel';
