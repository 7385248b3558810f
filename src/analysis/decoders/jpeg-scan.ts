// The entropy-coded data of one JPEG scan (jpeg.ts reads the markers around it): every MCU's blocks, keeping
// each block's DC value, and for a subsampled baseline component the low AC terms its detail plane needs.
import type { BitReader, HuffmanTable } from "./jpeg-bits";
import { LOW_COEFFICIENTS, type DcComponent } from "./jpeg-color";
import { LeanDecodeError } from "./reduce";

/** Zero bytes fed past a marker or the end before a scan is considered cut short (a few are normal). */
const MAX_PADDING = 64;

export type Component = DcComponent & {
  tq: number;
  pred: number;
  dcTable: HuffmanTable | null;
  acTable: HuffmanTable | null;
  /** Blocks holding image samples, across and down. */
  bw: number;
  bh: number;
  /** Whether `detail` is kept (baseline, subsampled by 2 or 4), and its weights once the scan starts. */
  wantsDetail: boolean;
  weights: Float64Array | null;
  /** A scan gave every block of this component its DC value (baseline, or progressive DC first). */
  dcComplete: boolean;
};

export type Frame = {
  progressive: boolean;
  precision: number;
  width: number;
  height: number;
  comps: Component[];
  hmax: number;
  vmax: number;
  mcusX: number;
  mcusY: number;
};

/** How a scan codes the blocks it carries: baseline (DC and AC), progressive DC first, or DC refinement. */
export const BASELINE = 0, DC_FIRST = 1, DC_REFINE = 2;
const low = new Float64Array(LOW_COEFFICIENTS);

/** Baseline block of a subsampled component: its AC terms give the means of its output pixels. */
function readDetail(reader: BitReader, c: Component, index: number) {
  reader.readAcLow(c.acTable!, low, LOW_COEFFICIENTS);
  const w = c.weights!, detail = c.detail!, fx = c.fx, fy = c.fy;
  const bx = index % c.stride, by = (index / c.stride) | 0;
  const rowLength = c.stride * fx;
  for (let i = 0, part = 0; i < fy; i++) {
    for (let j = 0; j < fx; j++, part += LOW_COEFFICIENTS) {
      let sum = 0;
      for (let k = 1; k < LOW_COEFFICIENTS; k++) sum += w[part + k] * low[k];
      detail[(by * fy + i) * rowLength + bx * fx + j] = sum;
    }
  }
}

function decodeBlock(reader: BitReader, c: Component, index: number, mode: number, al: number) {
  if (mode === DC_REFINE) {
    if (reader.bits(1)) c.dc[index] |= 1 << al;
    return;
  }
  const t = reader.decode(c.dcTable!);
  if (t > 16) throw new LeanDecodeError("corrupt JPEG: bad DC difference");
  c.pred += reader.receiveExtend(t);
  c.dc[index] = c.pred * (1 << al);
  if (mode !== BASELINE) return;
  if (c.detail) readDetail(reader, c, index);
  else reader.skipAc(c.acTable!);
}

/**
 * All MCUs of one scan; stops early (leaving the rest mid-grey) when the data runs out or breaks off.
 * Returns how many blocks it decoded; throws when that would exceed `budget`.
 */
export function decodeScan(reader: BitReader, frame: Frame, comps: Component[], mode: number, al: number, restartInterval: number, budget: number): number {
  const single = comps.length === 1;
  // A single-component scan has one block per MCU over the component's own block grid (T.81 A.2.2).
  const mcusX = single ? comps[0].bw : frame.mcusX;
  const total = mcusX * (single ? comps[0].bh : frame.mcusY);
  const blocksPerMcu = single ? 1 : comps.reduce((n, c) => n + c.h * c.v, 0);
  let m = 0;
  for (; m < total; m++) {
    if ((m + 1) * blocksPerMcu > budget) throw new LeanDecodeError("corrupt JPEG: too many scans");
    if (restartInterval > 0 && m > 0 && m % restartInterval === 0) {
      if (!reader.restart()) break;
      for (const c of comps) c.pred = 0;
    }
    const mx = m % mcusX, my = (m / mcusX) | 0;
    if (single) {
      decodeBlock(reader, comps[0], my * comps[0].stride + mx, mode, al);
    } else {
      for (const c of comps) {
        for (let v = 0; v < c.v; v++) {
          const row = (my * c.v + v) * c.stride + mx * c.h;
          for (let h = 0; h < c.h; h++) decodeBlock(reader, c, row + h, mode, al);
        }
      }
    }
    if (reader.padding > MAX_PADDING) {
      m++;
      break;
    }
  }
  return m * blocksPerMcu;
}
