/*
| A timer that never keeps the process alive, with its cancel: the bounds of the hash
| queue and of the lanes (a wait's deadline), which tests replace with timers they fire.
*/
export type SetTimer = (callback: () => void, ms: number) => () => void

export const unrefTimer: SetTimer = (callback, ms) => {
  const timer = setTimeout(callback, ms)
  timer.unref()
  return () => clearTimeout(timer)
}
