/** Creating a mongoose model once per connection: every collection of `store/` builds its model through it. */
import type { Connection, Model, Schema } from 'mongoose';

/** The model `name` on `connection`, created once. */
export function model<T>(connection: Connection, name: string, schema: Schema<T>): Model<T> {
  return (connection.models[name] as Model<T> | undefined) ?? connection.model<T>(name, schema);
}
