import { StatusProblem } from '../wire/problem';

/**
 * 403 `insufficient-scope`, naming the scope (a problem member of its own, and RFC 6750 §3.1's error in
 * `WWW-Authenticate`).
 */
export const insufficientScope = (scope: string, message: string): StatusProblem =>
  new StatusProblem(
    403,
    'insufficient-scope',
    'Insufficient scope',
    message,
    { 'WWW-Authenticate': `Bearer realm="flowboard", error="insufficient_scope", scope="${scope}"` },
    'PermissionDenied',
    { scope },
  );
