// Intra prediction (RFC 6386 section 12) and the inverse transforms (section 14), on small workspaces:
// luma is a 17 x 21 block (row 0 = the pixels above plus 4 above-right, column 0 = the pixels to the left),
// chroma a 9 x 9 block. The border conventions (127 above, 129 left) follow the `image` crate photon uses.
import { B_DC, B_HD, B_HE, B_HU, B_LD, B_RD, B_TM, B_VE, B_VL, B_VR, DC_PRED, H_PRED, TM_PRED, V_PRED } from "./webp-vp8-tables";

export const LUMA_STRIDE = 21;
export const CHROMA_STRIDE = 9;

const clamp255 = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : v);

/** 16x16 or 8x8 whole-block modes at (1, 1) of a workspace. */
export function predictBlock(ws: Uint8Array, mode: number, size: number, stride: number, haveAbove: boolean, haveLeft: boolean): void {
  if (mode === DC_PRED) {
    let sum = 0;
    let shift = size === 8 ? 2 : 3;
    if (haveLeft) {
      for (let y = 0; y < size; y++) sum += ws[(y + 1) * stride];
      shift++;
    }
    if (haveAbove) {
      for (let x = 0; x < size; x++) sum += ws[x + 1];
      shift++;
    }
    const dc = !haveLeft && !haveAbove ? 128 : (sum + (1 << (shift - 1))) >> shift;
    // Plain loops: TypedArray fill/copyWithin calls cost more than 8-16 stores.
    for (let y = 1; y <= size; y++) for (let x = 1, r = y * stride; x <= size; x++) ws[r + x] = dc;
  } else if (mode === V_PRED) {
    for (let y = 1; y <= size; y++) for (let x = 1, r = y * stride; x <= size; x++) ws[r + x] = ws[x];
  } else if (mode === H_PRED) {
    for (let y = 1; y <= size; y++) {
      const r = y * stride;
      const v = ws[r];
      for (let x = 1; x <= size; x++) ws[r + x] = v;
    }
  } else if (mode === TM_PRED) {
    predictTM(ws, size, 1, 1, stride);
  }
}

function predictTM(a: Uint8Array, size: number, x0: number, y0: number, stride: number) {
  const corner = a[(y0 - 1) * stride + x0 - 1];
  for (let y = 0; y < size; y++) {
    const left = a[(y0 + y) * stride + x0 - 1] - corner;
    const row = (y0 + y) * stride + x0;
    const above = (y0 - 1) * stride + x0;
    for (let x = 0; x < size; x++) a[row + x] = clamp255(left + a[above + x]);
  }
}

const avg3 = (l: number, t: number, r: number) => (l + 2 * t + r + 2) >> 2;
const avg2 = (t: number, r: number) => (t + r + 1) >> 1;

/** One 4x4 sub-block at (x0, y0) of the luma workspace. */
export function predictSubblock(a: Uint8Array, mode: number, x0: number, y0: number): void {
  const s = LUMA_STRIDE;
  const top = (y0 - 1) * s + x0;
  const p = a[top - 1];
  const a0 = a[top], a1 = a[top + 1], a2 = a[top + 2], a3 = a[top + 3];
  const l0 = a[y0 * s + x0 - 1], l1 = a[(y0 + 1) * s + x0 - 1], l2 = a[(y0 + 2) * s + x0 - 1], l3 = a[(y0 + 3) * s + x0 - 1];
  const o = y0 * s + x0;
  switch (mode) {
    case B_DC: {
      const v = (a0 + a1 + a2 + a3 + l0 + l1 + l2 + l3 + 4) >> 3;
      for (let y = 0, r = o; y < 4; y++, r += s) a[r] = a[r + 1] = a[r + 2] = a[r + 3] = v;
      return;
    }
    case B_TM:
      return predictTM(a, 4, x0, y0, s);
    case B_VE: {
      const a4 = a[top + 4];
      const v0 = avg3(p, a0, a1), v1 = avg3(a0, a1, a2), v2 = avg3(a1, a2, a3), v3 = avg3(a2, a3, a4);
      for (let y = 0; y < 4; y++) {
        const r = o + y * s;
        a[r] = v0;
        a[r + 1] = v1;
        a[r + 2] = v2;
        a[r + 3] = v3;
      }
      return;
    }
    case B_HE: {
      let v = avg3(p, l0, l1);
      a[o] = a[o + 1] = a[o + 2] = a[o + 3] = v;
      v = avg3(l0, l1, l2);
      a[o + s] = a[o + s + 1] = a[o + s + 2] = a[o + s + 3] = v;
      v = avg3(l1, l2, l3);
      a[o + 2 * s] = a[o + 2 * s + 1] = a[o + 2 * s + 2] = a[o + 2 * s + 3] = v;
      v = avg3(l2, l3, l3);
      a[o + 3 * s] = a[o + 3 * s + 1] = a[o + 3 * s + 2] = a[o + 3 * s + 3] = v;
      return;
    }
    case B_LD: {
      const a4 = a[top + 4], a5 = a[top + 5], a6 = a[top + 6], a7 = a[top + 7];
      const v = [avg3(a0, a1, a2), avg3(a1, a2, a3), avg3(a2, a3, a4), avg3(a3, a4, a5), avg3(a4, a5, a6), avg3(a5, a6, a7), avg3(a6, a7, a7)];
      for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) a[o + y * s + x] = v[y + x];
      return;
    }
    case B_RD: {
      // Edge from bottom-left up to the corner and along the top: l3 l2 l1 l0 p a0 a1 a2 a3.
      const e = [l3, l2, l1, l0, p, a0, a1, a2, a3];
      const v = [avg3(e[0], e[1], e[2]), avg3(e[1], e[2], e[3]), avg3(e[2], e[3], e[4]), avg3(e[3], e[4], e[5]), avg3(e[4], e[5], e[6]), avg3(e[5], e[6], e[7]), avg3(e[6], e[7], e[8])];
      for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) a[o + y * s + x] = v[3 - y + x];
      return;
    }
    case B_VR: {
      const e1 = l2, e2 = l1, e3 = l0, e4 = p, e5 = a0, e6 = a1, e7 = a2, e8 = a3;
      a[o + 3 * s] = avg3(e1, e2, e3);
      a[o + 2 * s] = avg3(e2, e3, e4);
      a[o + 3 * s + 1] = a[o + s] = avg3(e3, e4, e5);
      a[o + 2 * s + 1] = a[o] = avg2(e4, e5);
      a[o + 3 * s + 2] = a[o + s + 1] = avg3(e4, e5, e6);
      a[o + 2 * s + 2] = a[o + 1] = avg2(e5, e6);
      a[o + 3 * s + 3] = a[o + s + 2] = avg3(e5, e6, e7);
      a[o + 2 * s + 3] = a[o + 2] = avg2(e6, e7);
      a[o + s + 3] = avg3(e6, e7, e8);
      a[o + 3] = avg2(e7, e8);
      return;
    }
    case B_VL: {
      const a4 = a[top + 4], a5 = a[top + 5], a6 = a[top + 6], a7 = a[top + 7];
      a[o] = avg2(a0, a1);
      a[o + s] = avg3(a0, a1, a2);
      a[o + 2 * s] = a[o + 1] = avg2(a1, a2);
      a[o + s + 1] = a[o + 3 * s] = avg3(a1, a2, a3);
      a[o + 2 * s + 1] = a[o + 2] = avg2(a2, a3);
      a[o + 3 * s + 1] = a[o + s + 2] = avg3(a2, a3, a4);
      a[o + 2 * s + 2] = a[o + 3] = avg2(a3, a4);
      a[o + 3 * s + 2] = a[o + s + 3] = avg3(a3, a4, a5);
      a[o + 2 * s + 3] = avg3(a4, a5, a6);
      a[o + 3 * s + 3] = avg3(a5, a6, a7);
      return;
    }
    case B_HD: {
      const e0 = l3, e1 = l2, e2 = l1, e3 = l0, e4 = p, e5 = a0, e6 = a1, e7 = a2;
      a[o + 3 * s] = avg2(e0, e1);
      a[o + 3 * s + 1] = avg3(e0, e1, e2);
      a[o + 2 * s] = a[o + 3 * s + 2] = avg2(e1, e2);
      a[o + 2 * s + 1] = a[o + 3 * s + 3] = avg3(e1, e2, e3);
      a[o + 2 * s + 2] = a[o + s] = avg2(e2, e3);
      a[o + 2 * s + 3] = a[o + s + 1] = avg3(e2, e3, e4);
      a[o + s + 2] = a[o] = avg2(e3, e4);
      a[o + s + 3] = a[o + 1] = avg3(e3, e4, e5);
      a[o + 2] = avg3(e4, e5, e6);
      a[o + 3] = avg3(e5, e6, e7);
      return;
    }
    case B_HU: {
      a[o] = avg2(l0, l1);
      a[o + 1] = avg3(l0, l1, l2);
      a[o + 2] = a[o + s] = avg2(l1, l2);
      a[o + 3] = a[o + s + 1] = avg3(l1, l2, l3);
      a[o + s + 2] = a[o + 2 * s] = avg2(l2, l3);
      a[o + s + 3] = a[o + 2 * s + 1] = avg3(l2, l3, l3);
      a[o + 2 * s + 2] = a[o + 2 * s + 3] = a[o + 3 * s] = a[o + 3 * s + 1] = a[o + 3 * s + 2] = a[o + 3 * s + 3] = l3;
      return;
    }
  }
}

/** Adds a 4x4 residual (16 values from `r[ro]`) at (x0, y0), clamping. */
export function addResidue(ws: Uint8Array, stride: number, x0: number, y0: number, r: Int32Array, ro: number): void {
  for (let y = 0; y < 4; y++) {
    const p = (y0 + y) * stride + x0;
    const q = ro + y * 4;
    ws[p] = clamp255(ws[p] + r[q]);
    ws[p + 1] = clamp255(ws[p + 1] + r[q + 1]);
    ws[p + 2] = clamp255(ws[p + 2] + r[q + 2]);
    ws[p + 3] = clamp255(ws[p + 3] + r[q + 3]);
  }
}

// x * 35468 >> 16 and x + (x * 20091 >> 16), as the reference's 64-bit arithmetic (floor division);
// dequantized coefficients can exceed the int32-safe range of the plain shift.
const mul2 = (x: number) => (x < 60000 && x > -60000 ? (x * 35468) >> 16 : Math.floor((x * 35468) / 65536));
const mul1 = (x: number) => x + (x < 100000 && x > -100000 ? (x * 20091) >> 16 : Math.floor((x * 20091) / 65536));

/** Inverse DCT of the 16 coefficients at b[o] (raster order), in place. */
export function idct4x4(b: Int32Array, o: number): void {
  for (let i = 0; i < 4; i++) {
    const i0 = b[o + i], i4 = b[o + 4 + i], i8 = b[o + 8 + i], i12 = b[o + 12 + i];
    const a1 = i0 + i8;
    const b1 = i0 - i8;
    const c1 = mul2(i4) - mul1(i12);
    const d1 = mul1(i4) + mul2(i12);
    b[o + i] = a1 + d1;
    b[o + 4 + i] = b1 + c1;
    b[o + 12 + i] = a1 - d1;
    b[o + 8 + i] = b1 - c1;
  }
  for (let i = 0; i < 4; i++) {
    const r = o + 4 * i;
    const i0 = b[r], i1 = b[r + 1], i2 = b[r + 2], i3 = b[r + 3];
    const a1 = i0 + i2;
    const b1 = i0 - i2;
    const c1 = mul2(i1) - mul1(i3);
    const d1 = mul1(i1) + mul2(i3);
    b[r] = (a1 + d1 + 4) >> 3;
    b[r + 3] = (a1 - d1 + 4) >> 3;
    b[r + 1] = (b1 + c1 + 4) >> 3;
    b[r + 2] = (b1 - c1 + 4) >> 3;
  }
}

/** Inverse Walsh-Hadamard transform of the Y2 block, in place (its outputs are the luma DCs). */
export function iwht4x4(b: Int32Array): void {
  for (let i = 0; i < 4; i++) {
    const a1 = b[i] + b[12 + i];
    const b1 = b[4 + i] + b[8 + i];
    const c1 = b[4 + i] - b[8 + i];
    const d1 = b[i] - b[12 + i];
    b[i] = a1 + b1;
    b[4 + i] = c1 + d1;
    b[8 + i] = a1 - b1;
    b[12 + i] = d1 - c1;
  }
  for (let i = 0; i < 4; i++) {
    const r = 4 * i;
    const a1 = b[r] + b[r + 3];
    const b1 = b[r + 1] + b[r + 2];
    const c1 = b[r + 1] - b[r + 2];
    const d1 = b[r] - b[r + 3];
    b[r] = (a1 + b1 + 3) >> 3;
    b[r + 1] = (c1 + d1 + 3) >> 3;
    b[r + 2] = (a1 - b1 + 3) >> 3;
    b[r + 3] = (d1 - c1 + 3) >> 3;
  }
}
