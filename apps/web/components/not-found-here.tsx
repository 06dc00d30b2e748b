'use client';

import { notFound, useServerInsertedHTML } from 'next/navigation';
import { type ReactNode, useState } from 'react';

/**
 * notFound(), with the not-found page's words in the server's own HTML. Next.js cannot server-render a not-found
 * boundary for a notFound() thrown while a dynamic page renders: React's server renderer runs no error boundaries,
 * so the error ends the render and Next answers 404 with a bare `<html id="__next_error__">` document that only
 * JavaScript fills in (vercel/next.js#62228). `curl /runs/nope` had no text at all, and a browser without JavaScript
 * showed a blank page (S-196). The status can only come from that error, so this still throws it — from here, after
 * handing `children` (the words the not-found boundary shows) to useServerInsertedHTML, which Next writes into that
 * document's head. They go inside <noscript>: a browser without JavaScript parses them into the body (the HTML parser
 * leaves the head at the first element that cannot be in it); with JavaScript they stay inert text and the not-found
 * boundary renders the page as before. Thrown here rather than by a sibling of this component, so the words are
 * always handed over first.
 */
export function NotFoundHere({ children }: { children: ReactNode }): never {
  const [inserted] = useState(() => ({ done: false }));
  useServerInsertedHTML(() => {
    // Asked again at every flush of the response: the words go in once.
    if (inserted.done) return null;
    inserted.done = true;
    return <noscript>{children}</noscript>;
  });
  notFound();
}
