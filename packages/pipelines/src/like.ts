/** SQL LIKE: `%` any run, `_` one character, `\` escapes the next one; case-insensitive, as Databricks'. */
export function likeRegExp(pattern: string): RegExp {
  const lit = (c: string) => c.replace(/[.+^${}()|[\]\\*?]/g, '\\$&');
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) re += lit(pattern[++i]!);
    else if (c === '%') re += '.*';
    else if (c === '_') re += '.';
    else re += lit(c);
  }
  return new RegExp(`^${re}$`, 'is');
}
