/**
 * The only parts of a stored file's address: the Transfer's id and the File's uid, both made by the server.
 * Checked by every store before they become a path or an object key, so nothing else can reach one.
 */
const UID = /^[0-9a-f]{32}$/;

export function checkTransferId(transferId: number): void {
  if (!Number.isSafeInteger(transferId) || transferId < 1) throw new Error('invalid transfer id');
}

export function checkFileAddress(transferId: number, uid: string): void {
  if (!Number.isSafeInteger(transferId) || transferId < 1 || !UID.test(uid)) throw new Error('invalid file address');
}
