const DURATION_RE = /^(-)?P(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?)?$/;

/**
 * ISO 8601 durations in days, hours, minutes and seconds (`PT61S`, `P1DT2H`, `-PT5M`), in ms. Years
 * and months are refused: their length depends on the calendar, and a test moving the clock wants
 * exact ms. The control surface reads them, and so do the fixtures (a token's `expiresAfter`).
 */
export function parseDuration(text: string): number | undefined {
  const m = DURATION_RE.exec(text);
  if (m === null || text === "P" || text === "-P" || text.endsWith("T")) return undefined;
  const [, sign, d, h, min, s] = m;
  const ms =
    Number(d ?? 0) * 86_400_000 +
    Number(h ?? 0) * 3_600_000 +
    Number(min ?? 0) * 60_000 +
    Number(s ?? 0) * 1000;
  return sign === "-" ? -Math.round(ms) : Math.round(ms);
}
