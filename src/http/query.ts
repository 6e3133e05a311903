import { parse, type ParsedUrlQuery } from "node:querystring";

/**
 * The query parser: Express's "simple" one (node:querystring) without its cap of 1 000 parameters,
 * past which it drops the rest without a word, so that `limit=0` or `type=BOGUS` behind 1 000
 * fillers went unseen and the client got an unfiltered 200. Every parameter is read: the request
 * line is bounded by the 16 KiB header cap, so there are at most a few thousand.
 */
export const parseQuery = (text: string): ParsedUrlQuery => parse(text, "&", "=", { maxKeys: 0 });
