/** Borrowing: the catalogue of borrow products and the positions of end users' smart accounts, by operationId. */
import type { Handlers } from "../../wallet/types.js";
import {
  adjustBorrowPositionWithEndUserAccount,
  closeBorrowPositionWithEndUserAccount,
  createBorrowPositionWithEndUserAccount,
  listBorrowPositionsWithEndUserAccount,
} from "./positions.js";
import { getEvmBorrowProduct, listEvmBorrowProducts } from "./products.js";

export const handlers: Handlers = {
  listEvmBorrowProducts,
  getEvmBorrowProduct,
  listBorrowPositionsWithEndUserAccount,
  createBorrowPositionWithEndUserAccount,
  adjustBorrowPositionWithEndUserAccount,
  closeBorrowPositionWithEndUserAccount,
};
