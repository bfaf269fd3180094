/**
 * Where a guest buyer is, and what may be bought there. Guest checkout is for
 * US buyers with US phone numbers; the sandbox reads the buyer's state from
 * the phone number's area code and keeps a small table of state rules (a
 * stablecoin restricted to one network in one state, as the platform's
 * network_not_tradable describes). Two reserved test numbers reproduce
 * a blocked buyer and a declined card. All of it is in docs/onramp.md.
 */
import { apiError } from "../../errors/catalogue.js";

export interface Region {
  country: string;
  subdivision?: string;
}

/** New York's area codes: the one state of the sandbox's tradability table. */
const NEW_YORK_AREA_CODES = new Set([
  "212",
  "315",
  "332",
  "347",
  "363",
  "516",
  "518",
  "585",
  "607",
  "631",
  "646",
  "680",
  "716",
  "718",
  "838",
  "845",
  "914",
  "917",
  "929",
  "934",
]);

/** Buy rules by region: in these places the asset may only go to the listed networks. */
const TRADABILITY_RULES: Array<{ country: string; subdivision?: string; asset: string; networks: string[] }> = [
  { country: "US", subdivision: "NY", asset: "USDC", networks: ["ethereum"] },
];

/** Reserved test phone numbers (the 500-555-00xx range is not assigned to real subscribers). */
export const TEST_PHONE_NUMBERS = {
  /** The buyer is blocked from guest checkout: guest_permission_denied. */
  blocked: "+15005550001",
  /** The buyer's card is declined when they pay: the order ends ONRAMP_ORDER_STATUS_FAILED. */
  declined: "+15005550002",
} as const;

const PHONE_NUMBER = /^\+[1-9]\d{1,14}$/;

export function checkPhoneNumber(phoneNumber: string, field: string): void {
  if (!PHONE_NUMBER.test(phoneNumber))
    throw apiError("invalid_request", `${field} must be a phone number in E.164 form such as +12125550123, got ${JSON.stringify(phoneNumber)}.`);
}

/** Region of a phone number: US (with its state when the table knows the area code), or the country code outside North America. */
function regionOfPhone(phoneNumber: string): Region {
  if (!phoneNumber.startsWith("+1") || phoneNumber.length !== 12) return { country: `+${phoneNumber.slice(1, 4)}` };
  const areaCode = phoneNumber.slice(2, 5);
  return NEW_YORK_AREA_CODES.has(areaCode) ? { country: "US", subdivision: "NY" } : { country: "US" };
}

/** guest_permission_denied and guest_region_forbidden, from the buyer's phone number. */
export function checkGuestBuyer(phoneNumber: string): Region {
  if (phoneNumber === TEST_PHONE_NUMBERS.blocked) {
    throw apiError(
      "guest_permission_denied",
      `The buyer ${phoneNumber} is not allowed to complete onramp transactions as a guest; send them to the signed-in Coinbase onramp instead.`,
    );
  }
  const region = regionOfPhone(phoneNumber);
  if (region.country !== "US") {
    throw apiError("guest_region_forbidden", `Guest onramp is only offered to US buyers with a +1 US phone number; ${phoneNumber} is outside that region.`);
  }
  return region;
}

/** network_not_tradable when the region restricts the asset to other networks. */
export function checkTradable(region: Region, asset: string, network: string): void {
  const rule = TRADABILITY_RULES.find(
    (r) =>
      r.country === region.country?.toUpperCase() && (r.subdivision === undefined || r.subdivision === region.subdivision?.toUpperCase()) && r.asset === asset,
  );
  if (rule && !rule.networks.includes(network)) {
    const where = rule.subdivision ? `${rule.country}-${rule.subdivision}` : rule.country;
    throw apiError(
      "network_not_tradable",
      `${asset} cannot be bought on ${network} by buyers in ${where}; there it can only be sent on ${rule.networks.join(", ")}.`,
    );
  }
}
