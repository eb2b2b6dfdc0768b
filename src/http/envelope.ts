import { type TSchema, Type } from '@sinclair/typebox';

/** The success envelope around a route's `data`. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({
    status: Type.Integer({ description: 'Equal to the HTTP status' }),
    ok: Type.Literal(true),
    message: Type.String(),
    data,
  });
}

export const FieldErrorSchema = Type.Object({ field: Type.String(), message: Type.String() });

export const ErrorEnvelope = Type.Object(
  {
    status: Type.Integer({ description: 'Equal to the HTTP status' }),
    ok: Type.Literal(false),
    message: Type.String(),
    errors: Type.Array(FieldErrorSchema),
  },
  { $id: 'ErrorEnvelope', title: 'Error envelope' },
);

export interface SuccessBody<T> {
  status: number;
  ok: true;
  message: string;
  data: T;
}

/** The part of a reply `sendOk` sets: any route's reply, whatever its type provider. */
export interface StatusReply {
  code(statusCode: number): unknown;
}

export function sendOk<T>(reply: StatusReply, data: T, message: string, status = 200): SuccessBody<T> {
  reply.code(status);
  return { status, ok: true, message, data };
}
