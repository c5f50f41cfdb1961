/**
 * The Content-Security-Policy of the gateway's own pages (`/docs`, `/board`): everything from this origin only, no
 * inline code, no framing, no form posts, no base URL; images from `img` (the pages differ: data: icons, the
 * reference page's own files). One definition, so neither page can loosen it alone.
 */
export function pageCsp(options: { img: string; fonts?: boolean }): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${options.img}`,
    ...(options.fonts ? ["font-src 'self'"] : []),
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
