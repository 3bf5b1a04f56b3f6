// A bundle's source map cut down to the project's own sources. `node --enable-source-maps` parses
// a map whole when it loads the bundle and keeps every mapping in memory: the controller's full
// map (client-node, undici...) cost about 50 MiB of idle RSS, more than the code itself. Frames in
// dependencies keep their names (esbuild's keepNames) and point into the bundle; frames in the
// project's code point into its TypeScript sources.
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));

/** The numbers of one VLQ-encoded segment. */
function decodeSegment(text) {
  const out = [];
  let value = 0;
  let shift = 0;
  for (const c of text) {
    const digit = B64_INDEX.get(c);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}

function encodeSegment(numbers) {
  let text = '';
  for (const n of numbers) {
    let v = n < 0 ? (-n << 1) | 1 : n << 1;
    do {
      const digit = v & 31;
      v >>>= 5;
      text += B64[v > 0 ? digit | 32 : digit];
    } while (v > 0);
  }
  return text;
}

/**
 * The map with only the segments whose source passes `keep`: a segment of another source becomes
 * an unmapped one (generated column only), so that its code is not charged to the source before it.
 */
export function keepSources(map, keep) {
  const kept = map.sources.map((s) => keep(s));
  const newIndex = [];
  const sources = [];
  const sourcesContent = [];
  map.sources.forEach((s, i) => {
    if (!kept[i]) return;
    newIndex[i] = sources.length;
    sources.push(s);
    sourcesContent.push(map.sourcesContent?.[i] ?? null);
  });
  const names = [];
  const nameIndex = new Map();
  const keepName = (i) => {
    if (!nameIndex.has(i)) nameIndex.set(i, names.push(map.names[i]) - 1);
    return nameIndex.get(i);
  };
  // Absolute values carried across segments and lines, as the format's deltas are.
  let [src, line, col, name] = [0, 0, 0, 0];
  let [outSrc, outLine, outCol, outName] = [0, 0, 0, 0];
  const lines = map.mappings.split(';').map((text) => {
    let genCol = 0;
    let outGenCol = 0;
    let lastUnmapped = false;
    const segments = [];
    for (const seg of text ? text.split(',') : []) {
      const f = decodeSegment(seg);
      genCol += f[0];
      if (f.length >= 4) [src, line, col] = [src + f[1], line + f[2], col + f[3]];
      if (f.length >= 5) name += f[4];
      const mapped = f.length >= 4 && kept[src];
      if (!mapped && lastUnmapped) continue;
      const out = [genCol - outGenCol];
      outGenCol = genCol;
      if (mapped) {
        out.push(newIndex[src] - outSrc, line - outLine, col - outCol);
        [outSrc, outLine, outCol] = [newIndex[src], line, col];
        if (f.length >= 5) {
          out.push(keepName(name) - outName);
          outName = keepName(name);
        }
      }
      lastUnmapped = !mapped;
      segments.push(encodeSegment(out));
    }
    return segments.join(',');
  });
  return { ...map, sources, sourcesContent, names, mappings: lines.join(';') };
}

// The schema validator generated at build time (hack/schema-validator.mjs) is half a megabyte of
// code nobody reads; its frames, too, point into the bundle.
export const ownSources = (source) => !source.split('/').includes('node_modules') && !source.split('/').includes('generated');
