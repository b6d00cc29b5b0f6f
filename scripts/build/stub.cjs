// Stands in for optional native helpers (supports-color, bufferutil, utf-8-validate) that libraries try to
// require: inside the single executable require() reaches only built-in modules, so the bundle gets this.
module.exports = () => false;
