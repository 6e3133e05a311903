#!/usr/bin/env node
import { main } from "./cli.js";

await main(process.argv);
