/** An order desk's capabilities and a fake agent's behaviour for them: what the planned-chain suites route to. */
import type { Behaviour } from './fake-agent';

const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});
const ORDER_STATES = ['pending_payment', 'pending_shipment', 'shipped', 'delivered', 'cancelled'];

export const ORDER_DESK = [
  {
    name: 'query_order_status',
    description:
      'Check the current status of an order: pending payment, pending shipment, shipped, delivered or cancelled',
    examples: ['check the status of order 123', 'has my order shipped yet'],
    parameters: object({ order_id: { type: 'string' } }, ['order_id']),
    returns: object({ status: { type: 'string', enum: ORDER_STATES } }),
  },
  {
    name: 'cancel_order',
    description: 'Cancel an order that has not shipped yet',
    examples: ['cancel my order', 'cancel order 123'],
    parameters: object({ order_id: { type: 'string' } }, ['order_id']),
    returns: object({ success: { type: 'boolean' } }),
  },
  {
    name: 'request_refund',
    description: 'Request a refund of the money paid for an order',
    examples: ['request a refund for order 123', 'I want my money back'],
    parameters: object({ order_id: { type: 'string' } }, ['order_id']),
    returns: object({ refund_id: { type: 'string' } }),
  },
];

/** Orders whose status query answers `shipped`; every other order is `pending_shipment`. */
export const shippedOrders = new Set<string>();

export const orderDesk: Behaviour = (d) => {
  const params = (d.body.params ?? {}) as Record<string, string>;
  const processed = (result: unknown) => ({ status: 202, receipt: { status: 'processed' as const, result } });
  switch (d.body.capability) {
    case 'query_order_status':
      return processed({ status: shippedOrders.has(params.order_id!) ? 'shipped' : 'pending_shipment' });
    case 'cancel_order':
      return processed({ success: true });
    case 'request_refund':
      return processed({ refund_id: `RF-${params.order_id}` });
    default:
      return processed({ done: d.body.capability });
  }
};
