import { buildHttpApp, type HttpApp, type RouteModule } from '../http/app';
import type { Metrics } from '../http/ops/metrics';
import { configRoutes } from '../http/routes/config';
import { downloadRoutes } from '../http/routes/download';
import { fileRoutes } from '../http/routes/file';
import { frequentRecipientRoutes } from '../http/routes/frequent-recipients';
import { guestRoutes } from '../http/routes/guest';
import { legacyUploadRoutes } from '../http/routes/legacy-upload';
import { loginRoutes } from '../http/routes/login';
import { recipientRoutes } from '../http/routes/recipient';
import { transferRoutes } from '../http/routes/transfer';
import { userRoutes } from '../http/routes/user';
import { registerWebPages } from '../http/web/app-pages';
import { assetRouter } from '../http/web/assets';
import { downloadPage } from '../http/web/download-page';
import { mailSinkPage } from '../http/web/mail-sink-page';
import { PageRegistry } from '../http/web/pages';
import type { Services } from '../services';

/** The REST routes, the web pages and the operations' routes, over the services. */
export function composeHttp(services: Services, ops: { routes: RouteModule; metrics: Metrics }): HttpApp {
  const pages = new PageRegistry();
  registerWebPages(pages);
  pages.register('mail-sink', mailSinkPage);
  pages.register('download', downloadPage);
  const routes: RouteModule[] = [
    userRoutes,
    configRoutes,
    guestRoutes,
    transferRoutes,
    fileRoutes,
    legacyUploadRoutes,
    recipientRoutes,
    frequentRecipientRoutes,
    downloadRoutes,
    loginRoutes,
    ops.routes,
  ];
  return buildHttpApp(services, {
    routes,
    pages,
    extraRouters: [assetRouter()],
    observe: ops.metrics.middleware(),
  });
}
