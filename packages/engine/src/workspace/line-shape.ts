/** What a log line says, its leading timestamp and every number aside: two lines of one burst have the same shape. */
export function shapeOf(line: string): string {
  return line
    .trim()
    .replace(/^\S*\d\S*\s+/, '')
    .replace(/\d+/g, '#')
    .toLowerCase();
}
