// Tiny, deterministic archive writers for release assets: a ustar .tar.gz (keeps the executable bit, which
// Bun.Archive cannot set) and a deflate .zip for Windows. No timestamps, owners or host tools leak in, so the
// same binary always gives the same archive bytes and checksum, on any OS the release job runs on.
import { deflateRawSync, gzipSync } from "node:zlib";

export type ArchiveEntry = { name: string; data: Uint8Array; mode: number };

const encoder = new TextEncoder();

/** `level` 1–9: releases use 9; tests trade size for speed. */
export function tarGz(entries: readonly ArchiveEntry[], level = 9): Uint8Array {
  const blocks: Uint8Array[] = [];
  for (const entry of entries) {
    blocks.push(tarHeader(entry), entry.data);
    const pad = (512 - (entry.data.length % 512)) % 512;
    if (pad) blocks.push(new Uint8Array(pad));
  }
  blocks.push(new Uint8Array(1024)); // end of archive: two zero blocks
  return gzipSync(concat(blocks), { level });
}

function tarHeader(entry: ArchiveEntry): Uint8Array {
  const name = encoder.encode(entry.name);
  if (name.length > 100) throw new Error(`tar entry name too long: ${entry.name}`);
  const header = new Uint8Array(512);
  header.set(name, 0);
  putOctal(header, 100, 8, entry.mode);
  putOctal(header, 108, 8, 0); // uid
  putOctal(header, 116, 8, 0); // gid
  putOctal(header, 124, 12, entry.data.length);
  putOctal(header, 136, 12, 0); // mtime: fixed for reproducible archives
  header.fill(0x20, 148, 156); // checksum is computed with its own field as spaces
  header[156] = 0x30; // '0' regular file
  header.set(encoder.encode("ustar\u000000"), 257);
  header.set(encoder.encode("root"), 265);
  header.set(encoder.encode("root"), 297);
  const sum = header.reduce((acc, byte) => acc + byte, 0);
  putOctal(header, 148, 7, sum);
  header[155] = 0x20;
  return header;
}

/** Zero-padded octal digits followed by NUL, filling `width` bytes. */
function putOctal(target: Uint8Array, offset: number, width: number, value: number): void {
  const digits = value.toString(8).padStart(width - 1, "0");
  if (digits.length > width - 1) throw new Error(`value ${value} does not fit a ${width}-byte tar field`);
  target.set(encoder.encode(digits), offset);
  target[offset + width - 1] = 0;
}

const DOS_DATE_1980_01_01 = (0 << 9) | (1 << 5) | 1;

export function zip(entries: readonly ArchiveEntry[], level = 9): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = encoder.encode(entry.name);
    const packed = deflateRawSync(entry.data, { level });
    const crc = Bun.hash.crc32(entry.data) >>> 0;
    if (entry.data.length >= 0xffffffff || offset >= 0xffffffff) throw new Error("zip64 is not supported");

    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true); // version needed: deflate
    local.setUint16(6, 0, true); // flags
    local.setUint16(8, 8, true); // method: deflate
    local.setUint16(10, 0, true); // time 00:00
    local.setUint16(12, DOS_DATE_1980_01_01, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, packed.length, true);
    local.setUint32(22, entry.data.length, true);
    local.setUint16(26, name.length, true);
    local.setUint16(28, 0, true);
    locals.push(new Uint8Array(local.buffer), name, packed);

    const central = new DataView(new ArrayBuffer(46));
    central.setUint32(0, 0x02014b50, true);
    central.setUint16(4, (3 << 8) | 20, true); // made by Unix, so the external attributes carry the mode
    central.setUint16(6, 20, true);
    central.setUint16(8, 0, true);
    central.setUint16(10, 8, true);
    central.setUint16(12, 0, true);
    central.setUint16(14, DOS_DATE_1980_01_01, true);
    central.setUint32(16, crc, true);
    central.setUint32(20, packed.length, true);
    central.setUint32(24, entry.data.length, true);
    central.setUint16(28, name.length, true);
    // 30 extra length, 32 comment length, 34 disk, 36 internal attributes: all 0
    central.setUint32(38, ((0o100000 | entry.mode) << 16) >>> 0, true);
    central.setUint32(42, offset, true);
    centrals.push(new Uint8Array(central.buffer), name);

    offset += 30 + name.length + packed.length;
  }
  const directory = concat(centrals);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, directory.length, true);
  end.setUint32(16, offset, true);
  return concat([...locals, directory, new Uint8Array(end.buffer)]);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
