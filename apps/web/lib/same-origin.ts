/**
 * Refuse a cross-site form post to the BFF. The agent's session cookie is
 * SameSite=Lax, so a browser would not send it cross-site anyway; this makes the
 * BFF say no itself instead of relying on one cookie attribute. A request with
 * no Origin header (curl, an old browser) is allowed: the agent still checks the session.
 */
export function crossSite(request: Request): boolean {
  const origin = request.headers.get('origin');
  if (!origin || origin === 'null') return origin === 'null';
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host');
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}

export const crossSiteRefusal = () =>
  new Response('Refused: this form can only be posted from the Sandscope website itself.\n', {
    status: 403,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  });
