import '@mantine/core/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { session } from './api';
import { App } from './shell/App';

// A reload has no access token (it lives in memory only): ask the gateway for one from the cookie.
void session.restore();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
