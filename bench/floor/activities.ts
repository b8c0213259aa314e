/** The floor's one activity: POST the message to the agent, with the URL of its receipt. */
export interface FloorActivities {
  deliver(input: { message_id: string; agent_url: string; callback_url: string }): Promise<number>;
}

export const floorActivities: FloorActivities = {
  async deliver({ message_id, agent_url, callback_url }) {
    const answer = await fetch(agent_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message_id, callback_url }),
    });
    await answer.arrayBuffer();
    return answer.status;
  },
};
