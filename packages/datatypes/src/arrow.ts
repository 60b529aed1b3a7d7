/**
 * The Arrow type Databricks sends for each Databricks type when a client takes native Arrow types (Thrift's
 * arrow result sets): timestamps in the session time zone, TIMESTAMP_NTZ without one, decimals as 128-bit,
 * intervals and VARIANT as text. Its own entry point (`@minilake/datatypes/arrow`), so only the code paths
 * that build Arrow load apache-arrow.
 */
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  List,
  Map_,
  Null,
  Struct,
  TimestampMicrosecond,
  Utf8,
  type DataType,
} from 'apache-arrow';
import type { PrimitiveName, TypeNode } from './tree.js';

const PRIMITIVE_ARROW: Record<PrimitiveName, (timeZone: string, nested: boolean) => DataType> = {
  string: () => new Utf8(),
  bigint: () => new Int64(),
  int: () => new Int32(),
  smallint: () => new Int16(),
  tinyint: () => new Int8(),
  double: () => new Float64(),
  float: () => new Float32(),
  boolean: () => new Bool(),
  date: () => new DateDay(),
  timestamp: (timeZone) => new TimestampMicrosecond(timeZone),
  timestamp_ntz: () => new TimestampMicrosecond(),
  binary: () => new Binary(),
  interval: () => new Utf8(),
  variant: () => new Utf8(),
  // A NULL column is Arrow's Null; nested in a list, map or struct Databricks sends it as text.
  void: (_, nested) => (nested ? new Utf8() : new Null()),
};

/** The Arrow type of a Databricks type (`nested`: inside an array, map or struct). */
export function arrowType(t: TypeNode, timeZone: string, nested = false): DataType {
  switch (t.kind) {
    case 'array':
      return new List(new Field('element', arrowType(t.element, timeZone, true), true));
    case 'map':
      return new Map_(
        new Field(
          'entries',
          new Struct([
            new Field('key', arrowType(t.key, timeZone, true), false),
            new Field('value', arrowType(t.value, timeZone, true), true),
          ] as never),
          false,
        ),
      );
    case 'struct':
      return new Struct(t.fields.map((f) => new Field(f.name, arrowType(f.type, timeZone, true), true)));
    case 'decimal':
      return new Decimal(t.scale, t.precision, 128);
    case 'primitive':
      return PRIMITIVE_ARROW[t.name](timeZone, nested);
  }
}
