/**
 * How thrift reads a result column's Databricks type text: through the one vocabulary (@minilake/datatypes),
 * leniently, since a result column must always reach the client.
 */
import { parseDatabricksType, type TypeNode } from '@minilake/datatypes';

export { arrowType } from '@minilake/datatypes/arrow';
export { scalarName, thriftTypeId } from '@minilake/datatypes';

/** The type tree thrift works with. */
export type DbType = TypeNode;

const STRING: DbType = { kind: 'primitive', name: 'string' };

/** Text the parser rejects travels as a STRING rather than failing the statement. */
export function parseType(text: string): DbType {
  try {
    return parseDatabricksType(text);
  } catch {
    return STRING;
  }
}

/** ARRAY, MAP and STRUCT: the types that travel as JSON text unless the client takes them as Arrow. */
export const isComplex = (t: DbType): boolean =>
  t.kind === 'array' || t.kind === 'map' || t.kind === 'struct';
