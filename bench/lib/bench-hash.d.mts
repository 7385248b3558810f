export function benchHash(i: number, seed: number): string;
