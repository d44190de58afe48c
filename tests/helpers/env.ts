/*
| The one way tests change configuration: env values set through #start/env, as
| the app reads them, and always undone.
*/
import env from '#start/env'

export type EnvValue = string | number | boolean | undefined

/**
 * Sets env values through #start/env (`undefined` removes a variable from both env
 * and process.env) and returns a function that restores the previous values exactly,
 * unset ones included.
 */
export function overrideEnv(values: Record<string, EnvValue>) {
  const previous = Object.keys(values).map((name) => ({
    name,
    value: env.get(name as any) as unknown,
    inProcess: Object.hasOwn(process.env, name) ? process.env[name] : undefined,
  }))
  for (const [name, value] of Object.entries(values)) {
    env.set(name as any, value as any)
    if (value === undefined) delete process.env[name]
  }
  return () => {
    for (const { name, value, inProcess } of previous) {
      env.set(name as any, value as any)
      if (inProcess === undefined) delete process.env[name]
      else process.env[name] = inProcess
    }
  }
}

/** Sets (or, with undefined, removes) one env variable; returns the restore function. */
export function setEnv(name: string, value: EnvValue) {
  return overrideEnv({ [name]: value })
}

/** Runs `callback` with env overrides, restoring them even when it throws. */
export async function withEnv<T>(
  values: Record<string, EnvValue>,
  callback: () => Promise<T>
): Promise<T> {
  const restore = overrideEnv(values)
  try {
    return await callback()
  } finally {
    restore()
  }
}
