import { ipKeyGenerator } from "express-rate-limit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FC_SEED } from "../test-support/tokens.js";
import { clientAddressKey } from "./client-address.js";

// The key requests without a known token are counted by: the one express-rate-limit's helper gives.

describe("a client's address as a rate-limit key", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "::1",
    "::",
    "2001:db8::1",
    "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
    "2001:db8:abcd:12ff:ffff:ffff:ffff:ffff",
    "2001:db8:abcd:1200::",
    "fe80::1%eth0",
    "::ffff:192.168.1.7",
    "64:ff9b::10.0.0.1",
    "1:0:0:0:1:0:0:0",
    "0:0:1:0:0:1:0:0",
  ])("keys %s as express-rate-limit's ipKeyGenerator does", (ip) => {
    expect(clientAddressKey(ip)).toBe(ipKeyGenerator(ip));
  });

  it("keys any IPv6 address as express-rate-limit's ipKeyGenerator does", () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), fc.boolean(), (groups, compress) => {
        let ip = groups.map((g) => g.toString(16)).join(":");
        if (compress) ip = ip.replace(/(^|:)0(:0)+(:|$)/, "::");
        expect(clientAddressKey(ip)).toBe(ipKeyGenerator(ip));
      }),
      { seed: FC_SEED, numRuns: 300 },
    );
  });
});
