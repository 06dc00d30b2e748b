'use client';

import { usePathname } from 'next/navigation';

const LINKS = [
  { href: '/', label: 'Console' },
  { href: '/runs', label: 'Runs' },
  { href: '/investigations', label: 'Investigations' },
  { href: '/data', label: 'Data' },
  { href: '/evaluation', label: 'Evaluation' },
  { href: '/architecture', label: 'Architecture' },
] as const;

/** Plain links (full page loads work with JavaScript off); the current page is marked for screen readers too. */
export function NavLinks() {
  const path = usePathname() ?? '/';
  return (
    <nav aria-label="Site">
      <ul>
        {LINKS.map((l) => {
          const current = l.href === '/' ? path === '/' : path === l.href || path.startsWith(`${l.href}/`);
          return (
            <li key={l.href}>
              <a href={l.href} {...(current ? { 'aria-current': 'page' as const } : {})}>
                {l.label}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
