/**
 * An incident's files for tests: a 5,000-line log in which orders-db's pool
 * is named healthily at start-up (line 20), first fails at line 4312, and
 * checkout starts answering 502 at line 4400; and a JSON config.
 */
export function incidentLog(): string {
  const lines: string[] = [];
  for (let i = 1; i <= 5000; i++) {
    const t = `2024-05-01T${String(8 + Math.floor(i / 1200)).padStart(2, '0')}:${String(Math.floor(i / 20) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`;
    if (i === 20) lines.push(`${t} INFO orders-db connected, pool max=100`);
    else if (i >= 4312 && i <= 4318) lines.push(`${t} ERROR orders-db connection pool exhausted (100/100), waited 5000ms`);
    else if (i === 4400) lines.push(`${t} ERROR checkout upstream orders-db returned 502 Bad Gateway`);
    else lines.push(`${t} INFO GET /health 200 1ms`);
  }
  return `${lines.join('\n')}\n`;
}

export const INCIDENT_CONFIG = '{\n  "orders-db": { "pool": { "max": 100, "timeoutMs": 5000 } }\n}\n';
