/**
 * API resources as the contract shows them: plain objects in the contract's key order, built from the services'
 * gRPC messages. The gateway writes them as JSON or XML; webhooks put them in their payloads, so a receiver sees
 * a resource exactly as a GET shows it. A change event's payload (change.ts) is rendered here too, for webhooks'
 * bodies and the gateway's change stream alike.
 */
export * from './dto';
export { toJson } from './json';
export * from './account.dto';
export * from './api-key.dto';
export * from './attachment.dto';
export * from './change';
export * from './comment.dto';
export * from './history.dto';
export * from './invite.dto';
export * from './phase.dto';
export * from './project.dto';
export * from './role.dto';
export * from './story.dto';
export * from './tag.dto';
export * from './task.dto';
export * from './user.dto';
export * from './webhook.dto';
