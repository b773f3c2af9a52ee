/** The single page: the platform app at `/`, the developer dashboard under `/dashboard`. */
import { ApprovalDialog } from './components/ApprovalDialog.js';
import { ToastHost } from './components/Toasts.js';
import { useLocation } from './router/navigation.js';
import { parseRoute } from './router/routes.js';
import { Dashboard } from './screens/Dashboard.js';
import { PlatformApp } from './screens/PlatformApp.js';

export function App() {
  const { pathname, search } = useLocation();
  const route = parseRoute(pathname, search);
  return (
    <>
      {route.area === 'dashboard' ? <Dashboard route={route} /> : <PlatformApp route={route} />}
      <ApprovalDialog />
      <ToastHost />
    </>
  );
}
