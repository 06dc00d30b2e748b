/**
 * A GET on one of the website's form doors (`/api/…`). These routes take a form's POST only, and Next.js answers
 * any other method with a 405 and an empty body: a blank page for whoever reloads the address or follows it from
 * the history. A GET is sent on (303) to the page the form lives on, which is what that person was looking at.
 */
type Params = Promise<Record<string, string | string[] | undefined>>;

export function sendToPage(page: (params: Record<string, string>) => string) {
  return async (_request: Request, context: { params?: Params }): Promise<Response> => {
    const raw = (await context.params) ?? {};
    // Each segment is put back encoded: the location is always a path on this site.
    const params = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, encodeURIComponent(String(Array.isArray(v) ? v[0] : (v ?? '')))]));
    return new Response(null, { status: 303, headers: { location: page(params), 'cache-control': 'no-store' } });
  };
}
