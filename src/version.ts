/** Replaced at bundle time by build.sh (esbuild define); from source it reads package.json's version. */
declare const __FERRY_VERSION__: string | undefined;
export const VERSION: string = typeof __FERRY_VERSION__ === 'string' ? __FERRY_VERSION__ : '0.1.0-dev';
