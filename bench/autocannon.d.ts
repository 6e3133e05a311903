// autocannon ships no types; this declares the part of its API `npm run bench` uses, no more.
declare module "autocannon" {
  export interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Stop after this many requests instead of after `duration`. */
    amount?: number;
    method?: "GET" | "POST";
    headers?: Record<string, string>;
    body?: string;
  }
  export interface Stats {
    average: number;
    total: number;
    p50: number;
    p99: number;
  }
  export interface Result {
    requests: Stats;
    /** In ms. */
    latency: Stats;
    /** In seconds. */
    duration: number;
    "2xx": number;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
