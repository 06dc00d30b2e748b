import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import { NavLinks } from './nav-links';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Sandscope', template: '%s · Sandscope' },
  description: 'An evidence-gated, cited on-call assistant. It refuses when the library does not answer.',
};

export const viewport: Viewport = { colorScheme: 'dark light' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <a href="#main" className="skip">
          Skip to content
        </a>
        <header className="site-head">
          <a href="/" className="brand">
            SANDSCOPE
          </a>
          <NavLinks />
        </header>
        <main id="main">{children}</main>
        <footer className="site-foot">
          <p>
            The <a href="/data">data page</a> publishes the whole library the agent reads. The bundled one, Larkspur, is an invented company: every service,
            document and incident in it was written for this project. The engineering is real.
          </p>
        </footer>
      </body>
    </html>
  );
}
