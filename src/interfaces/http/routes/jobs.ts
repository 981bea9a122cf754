import { z } from 'zod';
import type { App, DoorContext } from '../context.js';
import { errorResponses, notFound } from '../errors.js';
import type { Job } from '../jobs.js';
import { jobSchema } from '../wire.js';

const idParams = z.object({ id: z.string().min(1).max(200) });

/** Job status by polling, or as a Server-Sent Events stream of `progress` then one `done`. */
export function jobRoutes(app: App, { jobs }: DoorContext): void {
  const own = (principal: { userId: string | null }, id: string): Job => {
    const job = jobs.get(id);
    if (!job || (principal.userId !== null && job.userId !== principal.userId)) throw notFound('job', id);
    return job;
  };

  app.get('/v1/jobs', {
    schema: { operationId: 'listJobs', tags: ['jobs'], response: { 200: z.object({ jobs: z.array(jobSchema) }), ...errorResponses } },
  }, async (req) => ({
    jobs: jobs.list().filter((j) => req.principal.userId === null || j.userId === req.principal.userId).map(jobs.view),
  }) as never);

  app.get('/v1/jobs/:id', {
    schema: { operationId: 'getJob', tags: ['jobs'], params: idParams, response: { 200: jobSchema, ...errorResponses } },
  }, async (req) => jobs.view(own(req.principal, req.params.id)) as never);

  app.get('/v1/jobs/:id/events', {
    schema: {
      operationId: 'jobEvents', tags: ['jobs'], params: idParams,
      response: { 200: z.string().describe('text/event-stream: `progress` events with the job, then one `done` event'), ...errorResponses },
    },
  }, async (req, reply) => {
    const job = own(req.principal, req.params.id);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const finish = (view: unknown) => {
      send('done', view);
      res.end();
    };
    if (job.state !== 'running') return finish(jobs.view(job));
    send('progress', jobs.view(job));
    const stop = jobs.watch(job.jobId, (view) => (view.state === 'running' ? send('progress', view) : (stop(), finish(view))));
    res.on('close', stop);
  });
}
