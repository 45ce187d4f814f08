import FastestValidator from "fastest-validator";
import { VALIDATOR_OPTIONS } from "./params";

/** The broker's validator with the project's options, for checks made outside action params (a batch's items). */
export const Validator = new FastestValidator(VALIDATOR_OPTIONS);
