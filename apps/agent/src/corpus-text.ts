import { isUtf8 } from 'node:buffer';

/** A corpus file's bytes as text, or why they are not text a person wrote in markdown. */
export type CorpusText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string };

/** The first line of every Git LFS pointer file (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md). */
const LFS_POINTER = /^\uFEFF?version https:\/\/git-lfs\.github\.com\/spec\/v1\r?\n/;

/**
 * Decides whether a `.md` file's bytes are text, and decodes them if so.
 *
 * Issue 12, defect 10: a binary file named `.md` (an image, an archive, a
 * document saved as UTF-16) was read with replacement characters and indexed
 * silently — passages of noise that retrieval could rank and an answer could
 * cite. A NUL byte never occurs in UTF-8 prose, and text that is not valid
 * UTF-8 would be indexed as mojibake, so either is reason to skip the file;
 * the caller warns, naming it. So is a Git LFS pointer, text that stands in
 * for the document. Other valid UTF-8 decodes exactly as before (a BOM is
 * kept), so no corpus that indexed correctly changes.
 */
export function decodeCorpusText(bytes: Uint8Array): CorpusText {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { ok: false, reason: 'it is UTF-16 text. Save it as UTF-8 to have it indexed.' };
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    return { ok: false, reason: `it is binary, not text (a NUL byte at offset ${nul}). Remove it from the corpus or give it an extension other than .md.` };
  }
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8Byte(bytes);
    return { ok: false, reason: `it is not valid UTF-8${at >= 0 ? ` (the byte at offset ${at})` : ''}. Save it as UTF-8 to have it indexed.` };
  }
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  // A repository cloned without `git lfs pull` holds three-line pointers where its documents should be: valid
  // UTF-8, so they were indexed as passages of "version https://git-lfs… oid sha256:…" and the runbook was missing.
  if (LFS_POINTER.test(text)) return { ok: false, reason: 'it is a Git LFS pointer, not the document. Run `git lfs pull` in its repository to fetch it.' };
  return { ok: true, text };
}

/** Where UTF-8 decoding first fails (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF), or -1. Only for the message. */
function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    const extra = lead < 0x80 ? 0 : lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : -1;
    if (extra < 0) return i;
    for (let k = 1; k <= extra; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    const second = bytes[i + 1] ?? 0;
    if ((lead === 0xe0 && second < 0xa0) || (lead === 0xed && second > 0x9f) || (lead === 0xf0 && second < 0x90) || (lead === 0xf4 && second > 0x8f)) return i;
    i += extra + 1;
  }
  return -1;
}
